package io.docmirror.store;

import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A store in a temporary directory with its HTTP server on a free loopback port, for tests that check one behaviour
 * both in-process ({@code "embedded"}) and over HTTP ({@code "http"}). Its clock stands still, and no reaper runs.
 */
final class StoreBothWays implements AutoCloseable {
    final EmbeddedStore embedded;
    final StoreHttpServer server;

    StoreBothWays(Path dataDirectory) throws IOException {
        embedded = EmbeddedStore.open(dataDirectory, StoreConfig.defaults().withSyncWrites(false),
                TestingClock.atEpochSecond(1_767_225_600), false);
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
    }

    /** @param kind {@code "embedded"} or {@code "http"} */
    StoreClient client(String kind) {
        return kind.equals("http") ? new HttpStoreClient(server.baseUri(), Optional.empty()) : embedded;
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            embedded.close();
        }
    }
}
