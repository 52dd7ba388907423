package io.docmirror.store;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import io.docmirror.store.server.StoreHttpServer;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A store on a temporary directory, its HTTP API over TLS with a generated certificate and random keys, and official
 * Cosmos DB SDK clients in gateway mode against it ({@link #client} with the primary key, closed with the rest): what
 * the tests of the Cosmos DB routes share, and those of the mirror that follows an account.
 */
public final class TestingCosmosGateway implements AutoCloseable {
    /** The server's certificate in PEM, for clients outside this JVM to trust. */
    public final Path certificate;
    public final String primaryKey;
    public final String readOnlyKey;
    public final EmbeddedStore store;
    public final StoreHttpServer server;
    public final CosmosClient client;

    private TestingCosmosGateway(Path certificate, String primaryKey, String readOnlyKey, EmbeddedStore store,
            StoreHttpServer server) {
        this.certificate = certificate;
        this.primaryKey = primaryKey;
        this.readOnlyKey = readOnlyKey;
        this.store = store;
        this.server = server;
        this.client = client(primaryKey);
    }

    public static TestingCosmosGateway start(Path directory) throws Exception {
        return start(directory, StoreConfig.defaults());
    }

    /**
     * A gateway whose server has {@code config}'s options but for its address, keys and TLS, which the gateway
     * sets (e.g. {@code config.withCosmosAllVersionsAndDeletes(false)} for an account without that change feed).
     */
    public static TestingCosmosGateway start(Path directory, StoreConfig config) throws Exception {
        Path keystore = TestingCertificate.serverKeystore(directory.resolve("tls"));
        EmbeddedStore store = EmbeddedStore.open(directory.resolve("store"), config.withSyncWrites(false));
        String primaryKey = randomKey();
        String readOnlyKey = randomKey();
        try {
            StoreHttpServer server = StoreHttpServer.start(store, config.withHttp("127.0.0.1", 0)
                    .withKeys(primaryKey, readOnlyKey).withTls(keystore.toString(), TestingCertificate.PASSWORD));
            return new TestingCosmosGateway(TestingCertificate.pem(keystore), primaryKey, readOnlyKey, store,
                    server);
        } catch (Exception | Error e) {
            store.close();
            throw e;
        }
    }

    /** A client with the given key; the caller closes it. */
    public CosmosClient client(String key) {
        return new CosmosClientBuilder()
                .endpoint(server.baseUri())
                .key(key)
                .gatewayMode()
                .contentResponseOnWriteEnabled(true)
                .buildClient();
    }

    /** An asynchronous client with the given key (the change feed processor needs one); the caller closes it. */
    CosmosAsyncClient asyncClient(String key) {
        return new CosmosClientBuilder()
                .endpoint(server.baseUri())
                .key(key)
                .gatewayMode()
                .contentResponseOnWriteEnabled(true)
                .buildAsyncClient();
    }

    public static String randomKey() {
        byte[] key = new byte[64];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    @Override
    public void close() {
        try (store; server) {
            client.close();
        }
    }
}
