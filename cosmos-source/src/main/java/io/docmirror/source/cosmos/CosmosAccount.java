package io.docmirror.source.cosmos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosDatabaseProperties;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.SourceContainers;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A Cosmos DB for NoSQL account as the mirror's source, through the official Java SDK in gateway mode: its
 * containers (of one database, or of all), and each container's change feed ({@link CosmosFeedSource}).
 *
 * <p>Container {@code orders} of database {@code shop} is mirrored as {@code shop.orders}, the name docmirror's own
 * store gives it too; it is mirrored when its analytical TTL is set, as in the store. Its feed ranges are the
 * container's partition key ranges.
 */
public final class CosmosAccount implements SourceContainers, AutoCloseable {
    private final String endpoint;
    private final Optional<String> database;
    private final CosmosClient client;

    private CosmosAccount(String endpoint, Optional<String> database, CosmosClient client) {
        this.endpoint = endpoint;
        this.database = database;
        this.client = client;
    }

    /**
     * Connects to the account, which the SDK reads as it starts.
     *
     * @param database the one database to mirror; empty for every database of the account
     * @throws StoreException 401 or 403 when the account refuses the key, 503 when it cannot be reached
     */
    public static CosmosAccount connect(String endpoint, String key, Optional<String> database) {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(key, "key is null");
        requireNonNull(database, "database is null");
        ExactSdkNumbers.install();
        CosmosClient client;
        try {
            client = new CosmosClientBuilder().endpoint(endpoint).key(key).gatewayMode().buildClient();
        } catch (RuntimeException e) {
            throw failure(endpoint, "connect to", e);
        }
        return new CosmosAccount(endpoint, database, client);
    }

    /**
     * Makes the Cosmos DB SDK read numbers exactly in this process ({@link ExactSdkNumbers}); {@link #connect} does it
     * too. A process that uses the SDK before it connects (a test writing documents, say) calls this first.
     *
     * @throws IllegalStateException when the SDK already read JSON in this process
     */
    public static void makeSdkNumbersExact() {
        ExactSdkNumbers.install();
    }

    /** Opens each container's change source in this account. */
    public ChangeSource.Opener opener() {
        return (container, from) -> CosmosFeedSource.open(this, container, from);
    }

    public String endpoint() {
        return endpoint;
    }

    /** The account's containers as {@code <database>.<container>}, with their analytical TTL. */
    @Override
    public List<ContainerProperties> listContainers() {
        try {
            List<String> databases = database.map(List::of).orElseGet(() -> client.readAllDatabases().stream()
                    .map(CosmosDatabaseProperties::getId).toList());
            List<ContainerProperties> containers = new ArrayList<>();
            for (String name : databases) {
                for (CosmosContainerProperties properties : client.getDatabase(name).readAllContainers()) {
                    containers.add(properties(name, properties));
                }
            }
            return containers;
        } catch (RuntimeException e) {
            throw failure(endpoint, "list the containers of", e);
        }
    }

    private ContainerProperties properties(String databaseName, CosmosContainerProperties properties) {
        String name = databaseName + "." + properties.getId();
        List<String> paths = properties.getPartitionKeyDefinition().getPaths();
        if (paths.size() != 1) {
            throw new IllegalArgumentException("Cannot mirror container " + name + " of the Cosmos DB account at "
                    + endpoint + ": it has a hierarchical partition key " + paths + ", which docmirror does not "
                    + "support yet");
        }
        int feedRanges = container(name).getFeedRanges().size();
        return new ContainerProperties(name, paths.get(0), properties.getDefaultTimeToLiveInSeconds(),
                properties.getAnalyticalStoreTimeToLiveInSeconds(), feedRanges, properties.getResourceId(),
                ContainerProperties.PartitionHashing.COSMOS_HASH_V2, properties.getETag());
    }

    /** The SDK's container of a mirrored container's name, {@code <database>.<container>}. */
    CosmosContainer container(String name) {
        int dot = name.indexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("Cannot mirror container " + name + " from a Cosmos DB account: a "
                    + "container of an account is named <database>.<container>");
        }
        return client.getDatabase(name.substring(0, dot)).getContainer(name.substring(dot + 1));
    }

    /** What to throw when a call to the account failed: a {@link StoreException} naming the endpoint. */
    StoreException failure(String what, RuntimeException e) {
        return failure(endpoint, what, e);
    }

    private static StoreException failure(String endpoint, String what, RuntimeException e) {
        CosmosException cosmos = cosmosException(e);
        int status = cosmos == null ? 0 : cosmos.getStatusCode();
        String reason = cosmos == null ? String.valueOf(e.getMessage()) : cosmos.getShortMessage();
        String message = "Cannot " + what + " the Cosmos DB account at " + endpoint + ": ";
        if (status == 401 || status == 403) {
            return new StoreException(StoreErrorCode.fromHttpStatus(status), message + "it refused the key (HTTP "
                    + status + "); give the account's primary key or read-only key with --key", e);
        }
        if (status == 0 || status == 408 || status == 429 || status >= 500) {
            // Not reached, timed out, throttled or failing over: the account is to be waited out, as a store is.
            return new StoreException(StoreErrorCode.UNAVAILABLE, message + "it does not answer"
                    + (status == 0 ? "" : " (HTTP " + status + ")") + ": " + reason, e);
        }
        return new StoreException(StoreErrorCode.fromHttpStatus(status), message + "HTTP " + status + ": " + reason,
                e);
    }

    private static CosmosException cosmosException(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CosmosException cosmos) {
                return cosmos;
            }
        }
        return null;
    }

    @Override
    public void close() {
        client.close();
    }
}
