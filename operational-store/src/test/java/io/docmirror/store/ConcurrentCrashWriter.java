package io.docmirror.store;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link GroupCommitCrashTest}: 16 threads upsert to the store (fsync on) as fast as they can,
 * forever. Thread {@code t} of trial {@code r} writes ids {@code r-t-0} to {@code r-t-9} in turn (each id always with
 * the same partition key), with {@code v} counting its writes, and prints {@code ack <id> <pk> <v>} once the store
 * acknowledged a write. It prints {@code grouped} once the store reports a group commit of more than one write.
 */
public final class ConcurrentCrashWriter {
    static final int THREADS = 16;

    private ConcurrentCrashWriter() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dataDir = Path.of(args[0]);
        String trial = args[1];
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        EmbeddedStore store = EmbeddedStore.open(dataDir, StoreConfig.defaults());
        if (store.listContainers().isEmpty()) {
            store.createContainer(ContainerProperties.of("crash", "/pk"));
        }
        Object printing = new Object();
        boolean[] groupedPrinted = {false};
        Thread[] threads = new Thread[THREADS];
        for (int index = 0; index < THREADS; index++) {
            int thread = index;
            threads[index] = new Thread(() -> {
                for (int v = 0; ; v++) {
                    int slot = v % 10;
                    String id = trial + "-" + thread + "-" + slot;
                    String pk = "p" + slot % 7;
                    store.upsertItem("crash", "{\"id\":\"" + id + "\",\"pk\":\"" + pk + "\",\"v\":" + v + "}");
                    boolean grouped = store.groupCommitStatistics().sharedGroups() > 0;
                    synchronized (printing) {
                        out.println("ack " + id + " " + pk + " " + v);
                        if (grouped && !groupedPrinted[0]) {
                            out.println("grouped");
                            groupedPrinted[0] = true;
                        }
                        out.flush();
                    }
                }
            }, "crash-writer-" + thread);
            threads[index].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
