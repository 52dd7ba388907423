package io.docmirror.store;

import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.http.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;

/** The whole store contract, over the HTTP API. */
class HttpStoreClientTest extends StoreContractTest {
    private EmbeddedStore embedded;
    private StoreHttpServer server;

    @Override
    StoreClient openClient(Path dataDir) {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults(), TestingClock.atEpochSecond(1_767_225_600), false);
        try {
            server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new HttpStoreClient(server.baseUri(), Optional.empty());
    }

    @AfterEach
    void stopServer() {
        server.close();
        embedded.close();
    }
}
