package io.docmirror.feed;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The same reader over the store's HTTP API: positions, tokens and retention errors behave as in-process. */
class ChangeFeedOverHttpTest {
    @TempDir
    Path dataDir;

    EmbeddedStore store;
    StoreHttpServer server;
    HttpStoreClient client;

    @BeforeEach
    void setUp() throws Exception {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withChangeLogRetention(-1, 3),
                TestingClock.atEpochSecond(1_767_225_600), false);
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        client = new HttpStoreClient(server.baseUri(), Optional.empty());
        store.createContainer(ContainerProperties.of("orders", "/customer").withLogPartitions(2));
    }

    @AfterEach
    void tearDown() {
        server.close();
        store.close();
    }

    @Test
    void readsResumesAndReportsLostPositions() {
        String start = ChangeFeedReader.open(client, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning()).continuation();
        for (int index = 0; index < 6; index++) {
            client.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customer\":\"c" + index + "\"}");
        }
        ChangeFeedReader reader = ChangeFeedReader.open(client, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.continuation(start));
        List<ChangeEvent> events = new ArrayList<>(reader.readNext(2).events());
        ChangeFeedReader resumed = ChangeFeedReader.open(client, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.continuation(reader.continuation()));
        ChangeFeedPage rest;
        do {
            rest = resumed.readNext(2);
            events.addAll(rest.events());
        } while (!rest.caughtUp());
        assertThat(events).extracting(ChangeEvent::id).containsExactlyInAnyOrder("o0", "o1", "o2", "o3", "o4", "o5");

        for (int index = 0; index < 10; index++) {
            client.upsertItem("orders", "{\"id\":\"x\",\"customer\":\"c0\",\"v\":" + index + "}");
        }
        store.trimChangeLog(100);
        ChangeFeedReader stale = ChangeFeedReader.open(client, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.continuation(start));
        assertThatThrownBy(() -> {
            for (int read = 0; read < 2; read++) {
                stale.readNext(1);
            }
        }).isInstanceOf(ChangeFeedException.class).hasMessageContaining("the oldest available position is after LSN");
    }
}
