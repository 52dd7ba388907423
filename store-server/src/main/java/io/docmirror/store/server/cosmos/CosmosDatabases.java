package io.docmirror.store.server.cosmos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Cosmos DB databases over the store's one flat namespace of containers. A database is a record in the store's
 * container {@value #CATALOG} (so it lasts as long as the store, like any item), and its containers are the store's
 * containers named {@code <database>.<container>}: container {@code orders} of database {@code shop} is the store's
 * container {@code shop.orders}, which the mirror and the SQL endpoint see under that name. A database id therefore
 * has no '.', and both ids are of the characters the store allows in container ids.
 *
 * <p>Deleting a database deletes its containers, as in Cosmos DB; a test that creates a fresh database with the same
 * container names gets fresh containers.
 */
final class CosmosDatabases {
    static final String CATALOG = "cosmos-databases";
    private static final Pattern DATABASE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");
    private static final Pattern CONTAINER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final int PAGE = 1000;

    /**
     * @param number the database's number in its resource id: the log position of its record's creation, which the
     *        store never gives twice, so a database created again under the same name has another id
     * @param ts when it was created, in seconds
     */
    record Database(String id, int number, long ts, String etag) {
        String resourceId() {
            return CosmosResourceIds.database(number);
        }

        String storeContainerPrefix() {
            return id + ".";
        }
    }

    private final StoreClient store;

    CosmosDatabases(StoreClient store) {
        this.store = requireNonNull(store, "store is null");
    }

    Database create(String id) {
        checkDatabaseId(id);
        ensureCatalog();
        ObjectNode record = StoreJson.mapper().createObjectNode().put("id", id);
        try {
            return database(store.createItem(CATALOG, record.toString()));
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.CONFLICT) {
                throw new StoreException(StoreErrorCode.CONFLICT, "Cannot create database " + id
                        + ": it already exists", e);
            }
            throw e;
        }
    }

    Optional<Database> find(String id) {
        if (!catalogExists()) {
            return Optional.empty();
        }
        return store.findItem(CATALOG, PartitionKey.of(id), id).map(CosmosDatabases::database);
    }

    /** @throws StoreException 404 when there is no such database */
    Database read(String id) {
        return find(id).orElseThrow(() -> new StoreException(StoreErrorCode.NOT_FOUND,
                "Cannot find database " + id + ": it does not exist"));
    }

    /** The database a path segment names, by id or by resource id. */
    Database resolve(String idOrResourceId) {
        Optional<Database> byId = find(idOrResourceId);
        if (byId.isPresent()) {
            return byId.get();
        }
        return CosmosResourceIds.databaseOf(idOrResourceId).stream()
                .mapToObj(number -> list().stream().filter(database -> database.number() == number).findFirst())
                .flatMap(Optional::stream)
                .findFirst()
                .orElseThrow(() -> new StoreException(StoreErrorCode.NOT_FOUND,
                        "Cannot find database " + idOrResourceId + ": it does not exist"));
    }

    List<Database> list() {
        if (!catalogExists()) {
            return List.of();
        }
        List<Database> databases = new ArrayList<>();
        Optional<String> continuation = Optional.empty();
        do {
            ItemPage page = store.scanItems(CATALOG, 0, continuation, PAGE);
            page.items().forEach(item -> databases.add(database(item)));
            continuation = page.continuation();
        } while (continuation.isPresent());
        return databases;
    }

    /** Deletes the database's containers, then the database. */
    void delete(String id) {
        Database database = read(id);
        for (ContainerProperties container : containers(database)) {
            store.deleteContainer(container.id());
        }
        store.deleteItem(CATALOG, PartitionKey.of(id), id);
    }

    List<ContainerProperties> containers(Database database) {
        return store.listContainers().stream()
                .filter(container -> container.id().startsWith(database.storeContainerPrefix()))
                .toList();
    }

    /** The store's name of a database's container, checking that the container id can be one. */
    static String storeContainerId(Database database, String containerId) {
        String storeId = database.storeContainerPrefix() + containerId;
        if (!CONTAINER_ID.matcher(containerId).matches() || storeId.length() > ContainerProperties.MAX_ID_LENGTH) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid container id '" + containerId
                    + "': docmirror keeps it as container " + database.storeContainerPrefix() + "<id>, so the id is "
                    + "letters, digits, '_', '-' and '.', starting with a letter or digit, and at most "
                    + (ContainerProperties.MAX_ID_LENGTH - database.storeContainerPrefix().length()) + " characters");
        }
        return storeId;
    }

    private static void checkDatabaseId(String id) {
        if (!DATABASE_ID.matcher(id).matches() || id.length() > ContainerProperties.MAX_ID_LENGTH - 2) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid database id '" + id + "': docmirror keeps a "
                    + "database's containers as <database>.<container>, so a database id is letters, digits, '_' "
                    + "and '-', starting with a letter or digit (no '.'), and at most "
                    + (ContainerProperties.MAX_ID_LENGTH - 2) + " characters");
        }
    }

    private boolean catalogExists() {
        return store.listContainers().stream().anyMatch(container -> container.id().equals(CATALOG));
    }

    private void ensureCatalog() {
        if (catalogExists()) {
            return;
        }
        try {
            store.createContainer(ContainerProperties.of(CATALOG, "/id").withLogPartitions(1));
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.CONFLICT) {
                throw e; // a CONFLICT is another request that created it first
            }
        }
    }

    private static Database database(Item item) {
        ObjectNode tree = item.tree();
        return new Database(item.id(), Math.toIntExact(item.lsn()), tree.path("_ts").asLong(),
                item.etag());
    }
}
