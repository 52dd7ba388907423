package io.docmirror.store.server.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.util.OptionalInt;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Cosmos DB containers as the store's containers: a container's path segments (by id or by resource id) resolved to
 * the store's container, and a Cosmos DB container definition read into the store's settings.
 */
final class CosmosContainers {
    /** A Cosmos DB container: its database and the store's container that holds it. */
    record Resolved(CosmosDatabases.Database database, ContainerProperties properties) {
        String resourceId() {
            return CosmosResourceIds.container(database.number(),
                    CosmosResourceIds.storeContainerNumber(properties.resourceId()));
        }

        String id() {
            return properties.id().substring(database.storeContainerPrefix().length());
        }

        String selfLink() {
            return "dbs/" + database.resourceId() + "/colls/" + resourceId() + "/";
        }
    }

    private final StoreClient store;
    private final CosmosDatabases databases;

    CosmosContainers(StoreClient store, CosmosDatabases databases) {
        this.store = requireNonNull(store, "store is null");
        this.databases = requireNonNull(databases, "databases is null");
    }

    /** @throws StoreException 404 when the database or the container does not exist */
    Resolved resolve(String database, String container) {
        CosmosDatabases.Database resolved = databases.resolve(database);
        String storeId = resolved.storeContainerPrefix() + container;
        for (ContainerProperties properties : databases.containers(resolved)) {
            if (properties.id().equals(storeId)) {
                return new Resolved(resolved, properties);
            }
        }
        OptionalInt number = CosmosResourceIds.containerOf(container);
        if (number.isPresent()) {
            for (ContainerProperties properties : databases.containers(resolved)) {
                if (CosmosResourceIds.storeContainerNumber(properties.resourceId()) == number.getAsInt()) {
                    return new Resolved(resolved, properties);
                }
            }
        }
        throw new StoreException(StoreErrorCode.NOT_FOUND, "Cannot find container " + container + " in database "
                + resolved.id() + ": it does not exist");
    }

    /**
     * The store's settings for a Cosmos DB container definition: {@code id}, {@code partitionKey} (one path; the
     * store hashes it as Cosmos DB's hash version 2 does), {@code defaultTtl}, {@code analyticalStorageTtl}. The
     * indexing, unique key and conflict resolution policies are taken and not kept: the store has no indexes.
     */
    ContainerProperties fromCosmos(CosmosDatabases.Database database, byte[] body) {
        return definition(database, body, "Cannot create container",
                id -> "Cannot create container " + id + " in database " + database.id())
                .withPartitionHashing(ContainerProperties.PartitionHashing.COSMOS_HASH_V2);
    }

    /**
     * The settings a replace of a container asks for, from a Cosmos DB container definition as for a creation; the
     * container keeps its log partitions and how it hashes partition keys, which Cosmos DB's definition does not name.
     */
    ContainerProperties replacement(Resolved container, byte[] body) {
        String context = "Cannot replace container " + container.id() + " in database " + container.database().id();
        return definition(container.database(), body, context, id -> context)
                .withLogPartitions(container.properties().logPartitions())
                .withPartitionHashing(container.properties().partitionHashing());
    }

    /** @param unnamedContext, namedContext what failed, before and after the definition's id is known */
    private ContainerProperties definition(CosmosDatabases.Database database, byte[] body, String unnamedContext,
            Function<String, String> namedContext) {
        JsonNode definition = CosmosWire.object(body, unnamedContext);
        String id = CosmosWire.requiredString(definition, "id", unnamedContext);
        String context = namedContext.apply(id);
        JsonNode partitionKey = definition.get("partitionKey");
        if (partitionKey == null || !partitionKey.isObject() || !partitionKey.path("paths").isArray()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'partitionKey' must be an object with "
                    + "'paths', e.g. {\"paths\":[\"/customerId\"],\"kind\":\"Hash\",\"version\":2}");
        }
        JsonNode paths = partitionKey.get("paths");
        String kind = partitionKey.path("kind").asText("Hash");
        if (paths.size() != 1 || !paths.get(0).isTextual() || !kind.equals("Hash")) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": the partition key must be one path of "
                    + "kind Hash; hierarchical partition keys (MultiHash) are not supported yet");
        }
        return new ContainerProperties(CosmosDatabases.storeContainerId(database, id), paths.get(0).asText(),
                CosmosWire.optionalInt(definition, "defaultTtl", context),
                CosmosWire.optionalInt(definition, "analyticalStorageTtl", context),
                ContainerProperties.DEFAULT_LOG_PARTITIONS);
    }
}
