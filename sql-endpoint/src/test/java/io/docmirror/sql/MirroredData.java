package io.docmirror.sql;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.TestingClock;

import java.nio.file.Path;
import java.time.Duration;

/** A data directory with a real store and its mirror, for tests that query the mirror through the endpoint. */
final class MirroredData implements AutoCloseable {
    final Path dataDirectory;
    final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    final EmbeddedStore store;

    MirroredData(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
        this.store = EmbeddedStore.open(dataDirectory.resolve("store"), StoreConfig.defaults().withSyncWrites(false),
                clock, false);
    }

    Path mirrorDirectory() {
        return MirrorLayout.mirrorDirectory(dataDirectory);
    }

    /** Mirrors everything written so far in one commit per container; returns the number of commits. */
    long sync() {
        return sync(MirrorConfig.defaults());
    }

    /** {@link #sync()} with the mirror's other options from {@code config} (compaction, say). */
    long sync(MirrorConfig config) {
        MirrorConfig oneCommit = config.withBatch(1_000_000, Duration.ofHours(1));
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory(), oneCommit, FlattenerConfig::defaults,
                clock)) {
            return mirror.sync().commits();
        }
    }

    @Override
    public void close() {
        store.close();
    }
}
