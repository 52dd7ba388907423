package io.docmirror.mirror.reconcile;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The mirror daemon as {@link DifferentialStreamTest} runs it in a process of its own, to kill it with SIGKILL in
 * the middle of its work: it mirrors the store in small batches until it is killed. No reaper runs, so that only the
 * test decides what expires. Arguments: the store directory, the mirror directory.
 */
public final class DifferentialDaemon {
    public static void main(String[] args) throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(Path.of(args[0]), StoreConfig.defaults().withSyncWrites(false),
                Clock.systemUTC(), false);
             FeedMirror mirror = new FeedMirror(store, Path.of(args[1]),
                     MirrorConfig.defaults().withBatch(5, Duration.ofMillis(5)), FlattenerConfig::defaults,
                     Clock.systemUTC())) {
            System.out.println("running");
            System.out.flush();
            mirror.run();
        }
    }
}
