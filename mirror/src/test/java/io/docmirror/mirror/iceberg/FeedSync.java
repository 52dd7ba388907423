package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorTarget;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;

import java.nio.file.Path;
import java.time.Clock;

/** For tests: one batch of a container's Iceberg mirror, of every change since its checkpoint (a restart each time). */
final class FeedSync {
    private FeedSync() {
    }

    static void sync(StoreClient store, ContainerProperties container, Path mirrorDirectory,
            FlattenerConfig flattenerConfig, MirrorConfig config, Clock clock) {
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, container, flattenerConfig, config,
                clock)) {
            sync(store, container, tables);
        }
    }

    /** One batch of every change since the checkpoint of {@code tables}, which stay open; returns its commit. */
    static MirrorTarget.Committed sync(StoreClient store, ContainerProperties container, ContainerTables tables) {
        try (ChangeSource source = EmbeddedFeedSource.open(store, container, tables.checkpoint())) {
            ContainerBatch batch = tables.begin();
            ChangeSource.Changes changes;
            do {
                changes = source.read(1000);
                changes.events().forEach(batch::add);
            } while (!changes.caughtUp());
            return batch.commit(source.checkpoint());
        }
    }
}
