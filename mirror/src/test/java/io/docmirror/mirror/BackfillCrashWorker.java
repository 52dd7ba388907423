package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;

import java.nio.file.Path;
import java.time.Clock;

/**
 * The child process of {@link BackfillCrashTest}: backfills container {@code orders}, printing a line as each feed
 * range commits, until it is killed (or done). Argument: the data directory.
 */
public final class BackfillCrashWorker {
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"), StoreConfig.defaults())) {
            System.out.println("running");
            System.out.flush();
            new Backfill(store, MirrorLayout.mirrorDirectory(data), MirrorConfig.defaults(),
                    FlattenerConfig.defaults("orders"), Clock.systemUTC()).run("orders", new Backfill.Listener() {
                        @Override
                        public void rangeCommitted(int feedRange, long lsn) {
                            System.out.println("committed " + feedRange);
                            System.out.flush();
                        }
                    });
            System.out.println("done");
        }
    }
}
