package io.docmirror.store;

import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/** The container snapshot's contract over HTTP: snapshots the server holds, read by {@code HttpStoreClient}. */
class HttpSnapshotTest extends SnapshotContractTest {
    private StoreHttpServer server;

    @Override
    SnapshotSource snapshotsOf(EmbeddedStore store) {
        try {
            server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new HttpStoreClient(server.baseUri(), Optional.empty()).asSnapshotSource();
    }

    @Override
    void closeSnapshots() {
        // Every snapshot a test closed was released by the server at once, not when its lease ran out.
        EmbeddedSnapshotTest.assertNoSnapshotLeftOpen(store);
        server.close();
    }
}
