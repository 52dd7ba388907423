package io.docmirror.store;

import com.fasterxml.jackson.databind.node.IntNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Group commit with fsync on: concurrent writers of one log partition share fsyncs, and sharing changes nothing a
 * client sees: every acknowledged write is there, LSNs have no gap, and If-Match read-modify-write loses no update.
 */
class GroupCommitTest {
    private static final int WRITERS = 16;
    /** Writes each writer makes at most while it waits for groups to form; with 16 writers a few are enough. */
    private static final int MAX_WRITES_PER_WRITER = 500;
    private static final int SHARED_GROUPS_WANTED = 20;

    @TempDir
    Path dir;

    @Test
    void concurrentWritersShareFsyncsAndEveryAcknowledgedWriteIsThere() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(dir, StoreConfig.defaults())) {
            assertThat(store.config().syncWrites()).isTrue();
            // One log partition: writes that share an fsync were queued behind each other, not side by side.
            store.createContainer(ContainerProperties.of("orders", "/pk").withLogPartitions(1));
            Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
            AtomicInteger writes = new AtomicInteger();

            runConcurrently(writer -> {
                // Each writer owns its ids and writes them in turn.
                for (int n = 0; n < MAX_WRITES_PER_WRITER
                        && store.groupCommitStatistics().sharedGroups() < SHARED_GROUPS_WANTED; n++) {
                    String id = "w" + writer + "-" + n % 10;
                    store.upsertItem("orders", "{\"id\":\"" + id + "\",\"pk\":\"p" + n % 8 + "\",\"v\":" + n + "}");
                    acknowledged.put(id, n);
                    writes.incrementAndGet();
                }
            });

            GroupCommitStatistics statistics = store.groupCommitStatistics();
            assertThat(statistics.sharedGroups()).as("groups of more than one write in %s", statistics)
                    .isGreaterThanOrEqualTo(SHARED_GROUPS_WANTED);
            assertThat(statistics.transactions()).as("writes made durable in %s", statistics).isEqualTo(writes.get());
            assertThat(statistics.groups()).as("fsyncs in %s", statistics).isLessThan(statistics.transactions());
            for (Map.Entry<String, Integer> entry : acknowledged.entrySet()) {
                String id = entry.getKey();
                int lastWritten = entry.getValue();
                Item item = store.readItem("orders", PartitionKey.of("p" + lastWritten % 8), id);
                assertThat(item.tree().get("v").asInt()).as("item %s", id).isEqualTo(lastWritten);
            }
            assertThat(StoreTesting.changeLog(store, "orders")).hasSize(writes.get());
            ChangeLogReplay.assertMatchesItems(store, "orders", "after " + writes.get() + " concurrent writes");
        }
    }

    @Test
    void ifMatchReadModifyWriteLosesNoUpdateWhileWritesAreQueued() throws Exception {
        int incrementsPerWriter = 15;
        try (EmbeddedStore store = EmbeddedStore.open(dir, StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of("counters", "/pk"));
            store.createItem("counters", "{\"id\":\"c\",\"pk\":\"p\",\"n\":0}");
            AtomicInteger refused = new AtomicInteger();

            runConcurrently(writer -> {
                for (int done = 0; done < incrementsPerWriter; ) {
                    Item current = store.readItem("counters", PartitionKey.of("p"), "c");
                    int next = current.tree().get("n").asInt() + 1;
                    try {
                        store.patchItem("counters", PartitionKey.of("p"), "c",
                                List.of(PatchOperation.set("/n", IntNode.valueOf(next))),
                                Precondition.ifMatch(current.etag()));
                        done++;
                    }
                    catch (StoreException e) {
                        assertThat(e.code()).as("%s", e.getMessage()).isEqualTo(StoreErrorCode.PRECONDITION_FAILED);
                        refused.incrementAndGet();
                    }
                }
            });

            Item counter = store.readItem("counters", PartitionKey.of("p"), "c");
            assertThat(counter.tree().get("n").asInt()).as("after %d writes refused by If-Match", refused.get())
                    .isEqualTo(WRITERS * incrementsPerWriter);
            ChangeLogReplay.assertMatchesItems(store, "counters", "after the increments");
        }
    }

    @FunctionalInterface
    private interface Writer {
        void run(int writer) throws Exception;
    }

    private static void runConcurrently(Writer writer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int index = 0; index < WRITERS; index++) {
                int number = index;
                running.add(pool.submit(() -> {
                    writer.run(number);
                    return null;
                }));
            }
            for (Future<?> future : running) {
                future.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }
}
