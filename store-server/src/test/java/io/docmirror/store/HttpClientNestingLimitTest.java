package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A document at the store's nesting limit is valid, so every response that carries it reads back over HTTP, although
 * the response wraps it in envelopes that nest deeper than the limit (a change log page: three levels; a batch
 * result: four).
 */
class HttpClientNestingLimitTest {
    private static final String CONTAINER = "deep";
    private static final PartitionKey PARTITION = PartitionKey.of("a");

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;
    private HttpStoreClient client;
    private Item stored;

    @BeforeEach
    void storeADocumentAtTheLimit() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        client = new HttpStoreClient(server.baseUri(), Optional.empty());
        embedded.createContainer(ContainerProperties.of(CONTAINER, "/pk").withLogPartitions(1));
        stored = embedded.createItem(CONTAINER, nested(StoreJson.MAX_NESTING_DEPTH));
    }

    @AfterEach
    void stopServer() {
        server.close();
        embedded.close();
    }

    @Test
    void everyResponseThatCarriesTheDocumentReadsBack() throws Exception {
        JsonNode document = StoreJson.mapper().readTree(stored.json());

        assertThat(tree(client.findItem(CONTAINER, PARTITION, "deep").orElseThrow())).isEqualTo(document);
        assertThat(client.readPartition(CONTAINER, PARTITION)).singleElement()
                .satisfies(item -> assertThat(tree(item)).isEqualTo(document));
        assertThat(client.scanItems(CONTAINER, 0, Optional.empty(), 10).items()).singleElement()
                .satisfies(item -> assertThat(tree(item)).isEqualTo(document));
        assertThat(client.readChangeLog(CONTAINER, 0, 0, 10).events()).singleElement()
                .satisfies(event -> assertThat(StoreJson.mapper().readTree(event.documentJson().orElseThrow()))
                        .isEqualTo(document));
        try (StoreSnapshot snapshot = client.createSnapshot(CONTAINER)) {
            assertThat(snapshot.read(SnapshotInterval.wholePartition(0), Optional.empty(), 10).events())
                    .singleElement().satisfies(event -> assertThat(StoreJson.mapper().readTree(
                            event.documentJson().orElseThrow())).isEqualTo(document));
        }
        assertThat(client.executeBatch(CONTAINER, PARTITION, List.of(BatchOperation.read("deep"))).results())
                .singleElement().satisfies(result -> assertThat(tree(result.item())).isEqualTo(document));
    }

    private static JsonNode tree(Item item) throws Exception {
        return StoreJson.mapper().readTree(item.json());
    }

    /** A document of {@code levels} levels of nesting, the top-level object being level 1. */
    private static String nested(int levels) {
        return "{\"id\":\"deep\",\"pk\":\"a\",\"n\":" + "{\"n\":".repeat(levels - 2) + "{\"leaf\":1}"
                + "}".repeat(levels - 2) + "}";
    }
}
