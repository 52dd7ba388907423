package io.docmirror.cli;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.source.cosmos.CosmosAccount;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingCertificate;
import io.docmirror.store.http.StoreHttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mirror sync --source cosmos} against docmirror's store serving the Cosmos DB routes over TLS. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MirrorCosmosAccountTest {
    private static final String KEY = randomKey();

    private EmbeddedStore store;
    private StoreHttpServer server;
    private CosmosClient client;

    @BeforeAll
    void start(@TempDir Path directory) throws Exception {
        CosmosAccount.makeSdkNumbersExact();
        Path keystore = TestingCertificate.serverKeystore(directory.resolve("tls"));
        store = EmbeddedStore.open(directory.resolve("account"), StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0)
                .withKeys(KEY, randomKey()).withTls(keystore.toString(), TestingCertificate.PASSWORD));
        client = new CosmosClientBuilder().endpoint(server.baseUri()).key(KEY).gatewayMode().buildClient();
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @Test
    void mirrorSyncFollowsTheAccountsContainersExactly(@TempDir Path data) throws Exception {
        client.createDatabase("shop");
        CosmosContainerProperties definition = new CosmosContainerProperties("orders", "/customerId");
        definition.setAnalyticalStoreTimeToLiveInSeconds(-1);
        client.getDatabase("shop").createContainer(definition);
        CosmosContainer orders = client.getDatabase("shop").getContainer("orders");
        for (int index = 0; index < 25; index++) {
            orders.createItem(StoreJson.mapper().readTree("{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 4
                    + "\",\"amount\":12345678901234567890.123456789012345678901}"));
        }

        assertThat(sync(data)).isEqualTo(ExitCodes.OK);
        orders.deleteItem("o3", new PartitionKey("c3"), new CosmosItemRequestOptions());
        orders.upsertItem(StoreJson.mapper().readTree("{\"id\":\"o4\",\"customerId\":\"c0\",\"amount\":1e400}"));
        assertThat(sync(data)).isEqualTo(ExitCodes.OK);

        ReconcileReport report = new Reconciler(store, MirrorLayout.mirrorDirectory(data), Clock.systemUTC(), 10)
                .reconcile("shop.orders");
        assertThat(report.differences()).isEmpty();
        assertThat(report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum()).isEqualTo(24);
    }

    @Test
    void aWrongKeyIsOneLineNamingTheEndpoint(@TempDir Path data) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = Docmirror.run("mirror", "sync", "--data", data.toString(), "--source", "cosmos", "--endpoint",
                    server.baseUri(), "--key", randomKey());
        } finally {
            System.setErr(err);
        }
        assertThat(exit).isEqualTo(ExitCodes.FAILURE);
        assertThat(captured.toString(StandardCharsets.UTF_8)).isEqualTo("docmirror: Cannot connect to the Cosmos DB "
                + "account at " + server.baseUri() + ": it refused the key (HTTP 401); give the account's primary "
                + "key or read-only key with --key" + System.lineSeparator());
    }

    private int sync(Path data) {
        return Docmirror.run("mirror", "sync", "--data", data.toString(), "--source", "cosmos", "--endpoint",
                server.baseUri(), "--key", KEY, "--database", "shop");
    }

    private static String randomKey() {
        byte[] key = new byte[64];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }
}
