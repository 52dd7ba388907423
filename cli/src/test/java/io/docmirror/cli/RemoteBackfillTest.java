package io.docmirror.cli;

import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code backfill --store URL}: a store served by another process, read from the snapshots its HTTP API holds. */
class RemoteBackfillTest {
    @TempDir
    Path dir;

    @Test
    void backfillReadsARemoteStoreFromItsSnapshotsAndReconcilesExactly() throws Exception {
        Path storeData = dir.resolve("store-machine");
        Path mirrorData = dir.resolve("mirror-machine");
        assertThat(Docmirror.run("import", "--data", storeData.toString(), "--container", "laureates", "--pk",
                "/gender", "--generate-ids", ImportCommandTest.dataset("nobel_laureates").toString()))
                .isEqualTo(ExitCodes.OK);
        StoreConfig config = StoreConfig.defaults().withSyncWrites(false);
        try (EmbeddedStore store = EmbeddedStore.open(storeData.resolve("store"), config);
                StoreHttpServer server = StoreHttpServer.start(store, config.withHttp("127.0.0.1", 0))) {
            assertThat(Docmirror.run("backfill", "--data", mirrorData.toString(), "--store", server.baseUri(),
                    "--container", "laureates")).isEqualTo(ExitCodes.OK);

            // Every snapshot the backfill took was released when it was done with it.
            assertThat(store.openSnapshots()).isZero();
            assertThat(MirrorThroughKafkaTest.query(mirrorData, "SELECT count(*) FROM laureates")).isEqualTo(992);
            assertThat(Docmirror.run("reconcile", "--data", mirrorData.toString(), "--store", server.baseUri()))
                    .isEqualTo(ExitCodes.OK);
        }
    }
}
