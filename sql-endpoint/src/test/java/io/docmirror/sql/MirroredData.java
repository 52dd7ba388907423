package io.docmirror.sql;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.TestingClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/** A data directory with a real store and its mirror, for tests that query the mirror through the endpoint. */
final class MirroredData implements AutoCloseable {
    final Path dataDirectory;
    final TestingClock clock;
    final EmbeddedStore store;

    MirroredData(Path dataDirectory) {
        this(dataDirectory, TestingClock.atEpochSecond(1_700_000_000L));
    }

    /** @param clock the store's and the mirror's clock */
    MirroredData(Path dataDirectory, TestingClock clock) {
        this.dataDirectory = dataDirectory;
        this.clock = clock;
        this.store = EmbeddedStore.open(dataDirectory.resolve("store"), StoreConfig.defaults().withSyncWrites(false),
                clock, false);
    }

    Path mirrorDirectory() {
        return MirrorLayout.mirrorDirectory(dataDirectory);
    }

    /** A Parquet data file of one of a container's Iceberg tables, in the embedded catalog's warehouse. */
    Path dataFile(String container, String table) {
        Path data = mirrorDirectory().resolve(CatalogSettings.WAREHOUSE_DIRECTORY).resolve(container).resolve(table)
                .resolve("data");
        try (Stream<Path> files = Files.list(data)) {
            return files.filter(file -> file.toString().endsWith(".parquet")).sorted().findFirst().orElseThrow(
                    () -> new IllegalStateException("No Parquet file in " + data));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
