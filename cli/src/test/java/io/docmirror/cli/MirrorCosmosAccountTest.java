package io.docmirror.cli;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.source.cosmos.CosmosAccount;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingCosmosGateway;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mirror sync --source cosmos} against docmirror's store serving the Cosmos DB routes over TLS. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MirrorCosmosAccountTest {

    private TestingCosmosGateway gateway;
    private String key;
    private EmbeddedStore store;
    private StoreHttpServer server;
    private CosmosClient client;

    @BeforeAll
    void start(@TempDir Path directory) throws Exception {
        CosmosAccount.makeSdkNumbersExact();
        gateway = TestingCosmosGateway.start(directory);
        key = gateway.primaryKey;
        store = gateway.store;
        server = gateway.server;
        client = gateway.client;
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
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
                    server.baseUri(), "--key", TestingCosmosGateway.randomKey());
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
                server.baseUri(), "--key", key, "--database", "shop");
    }
}
