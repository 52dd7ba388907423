package io.docmirror.flink;

import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The job on Flink's MiniCluster (two writers, RocksDB state, checkpoints every 300 ms) against a real Kafka broker:
 * the topic holds changes as the store's publisher writes them (envelopes, tombstones after deletes, and records of an
 * earlier container of the same name), and the tables end up holding each live document once, with its last
 * version, and a history row for each change, exactly once: through a task manager lost mid-stream, a stop with a
 * savepoint and a restore from it at another parallelism. A restore from a savepoint the tables moved on from is
 * refused.
 */
@Tag("slow")
class FlinkMirrorJobTest {
    private static final String CONTAINER = "orders";
    private static final String TOPIC = "docmirror." + CONTAINER;
    private static final int PARALLELISM = 2;
    private static final Duration CATCH_UP = Duration.ofMinutes(3);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MirrorJobs.miniCluster();

    @TempDir
    Path work;

    private final ContainerProperties container = new ContainerProperties(CONTAINER, "/pk", null, -1, 4,
            "rid-now", null, null);

    @Test
    void aTaskManagerLostAndARescaleFromASavepointMidStreamLeaveTheMirrorExact(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Path mirror = Files.createDirectories(work.resolve("mirror"));
        OrdersWorkload workload = new OrdersWorkload(container);
        try (KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"));
             ContainerTopic topic = new ContainerTopic(broker, TOPIC)) {
            createTopic(broker);
            publishEarlierContainer(topic, broker);
            publish(topic, broker, workload.next(200));
            JobClient job = start(broker, mirror, PARALLELISM, null);
            String savepoint;
            try {
                awaitExact(mirror, workload, "the first 200 changes");
                publish(topic, broker, workload.next(300));
                // The task manager goes, mid-stream: the job restarts from its last checkpoint on a new one.
                cluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
                cluster.startTaskManager();
                awaitExact(mirror, workload, "300 more, the task manager lost while they were read");
                publish(topic, broker, workload.next(300));
                savepoint = job.stopWithSavepoint(false, work.resolve("savepoints").toUri().toString(),
                        SavepointFormatType.CANONICAL).get(120, TimeUnit.SECONDS);
            } finally {
                stop(job);
            }
            publish(topic, broker, workload.next(200));
            JobClient rescaled = start(broker, mirror, 4, savepoint);
            try {
                awaitExact(mirror, workload, "300 more, the job stopped with a savepoint while it read them, and 200 "
                        + "more read once it was restored from the savepoint with four writers");
            } finally {
                stop(rescaled);
            }
            // The savepoint again: the tables moved on since, so its row places are stale and the job refuses.
            JobClient stale = start(broker, mirror, PARALLELISM, savepoint);
            try {
                assertThatThrownBy(() -> stale.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                        .as("a job restored from a savepoint the tables moved on from")
                        .hasStackTraceContaining("moved on since checkpoint");
            } finally {
                stop(stale);
            }
            awaitExact(mirror, workload, "after the refused restore");
        }
    }

    private JobClient start(KafkaBroker broker, Path mirror, int parallelism, String savepoint) throws Exception {
        return MirrorJobs.start(work, broker.bootstrapServers(), TOPIC, container, mirror, parallelism, savepoint);
    }

    private static void stop(JobClient job) throws Exception {
        MirrorJobs.stop(job);
    }

    /** Waits until the tables hold exactly what the workload made: the live documents and every change's history. */
    private static void awaitExact(Path mirror, OrdersWorkload workload, String when) throws InterruptedException {
        Map<String, String> expected = workload.statuses();
        Map<String, List<String>> expectedItems = workload.items();
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        Mirrored seen = Mirrored.read(mirror);
        while (!(seen.statuses().equals(expected) && seen.items().equals(expectedItems)
                && seen.history() == workload.changes())) {
            assertThat(seen.duplicates()).as("%s: documents in the root table twice", when).isEmpty();
            assertThat(seen.history()).as("%s: history rows, at most one a change", when)
                    .isLessThanOrEqualTo(workload.changes());
            if (System.nanoTime() > deadline) {
                assertThat(seen.statuses()).as("%s: the root table after %s", when, CATCH_UP).isEqualTo(expected);
                assertThat(seen.items()).as("%s: the items table after %s", when, CATCH_UP).isEqualTo(expectedItems);
                assertThat(seen.history()).as("%s: the history's rows after %s", when, CATCH_UP)
                        .isEqualTo(workload.changes());
            }
            Thread.sleep(300);
            seen = Mirrored.read(mirror);
        }
    }

    /**
     * What the committed tables hold: the root table's documents and statuses, the items table's skus by document
     * (sorted), and the history's row count.
     */
    private record Mirrored(Map<String, String> statuses, Set<String> duplicates, Map<String, List<String>> items,
            long history) {
        static Mirrored read(Path mirror) {
            FlattenerConfig config = FlattenerConfig.defaults(CONTAINER);
            try (CatalogConnection catalog = MirrorCatalog.open(MirrorConfig.defaults().catalog().settings(mirror))) {
                Map<String, String> statuses = new HashMap<>();
                Set<String> duplicates = new TreeSet<>();
                for (Record row : rows(catalog, MirrorTables.table(CONTAINER, config.rootTable()))) {
                    String id = (String) row.getField("id");
                    if (statuses.put(id, (String) row.getField("status")) != null) {
                        duplicates.add(id);
                    }
                }
                Map<String, List<String>> items = new HashMap<>();
                for (Record row : rows(catalog, MirrorTables.table(CONTAINER, config.rootTable() + "__items"))) {
                    items.computeIfAbsent((String) row.getField("_id"), id -> new ArrayList<>())
                            .add((String) row.getField("sku"));
                }
                items.values().forEach(skus -> skus.sort(null));
                long history = rows(catalog, MirrorTables.table(CONTAINER, MirrorTables.history(config.rootTable())))
                        .size();
                return new Mirrored(statuses, duplicates, items, history);
            }
        }

        private static List<Record> rows(CatalogConnection catalog, TableIdentifier identifier) {
            if (!catalog.catalog().tableExists(identifier)) {
                return List.of();
            }
            Table table = catalog.catalog().loadTable(identifier);
            if (table.currentSnapshot() == null) {
                return List.of();
            }
            try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
                List<Record> rows = new ArrayList<>();
                records.forEach(rows::add);
                return rows;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + identifier, e);
            }
        }
    }

    private static void createTopic(KafkaBroker broker) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 4, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** The changes, as {@code KafkaChangePublisher} sends them. */
    private void publish(ContainerTopic topic, KafkaBroker broker, List<ChangeEvent> events) throws Exception {
        topic.publish(new ChangeEnvelope(KafkaBridgeConfig.defaults(broker.bootstrapServers()), container), events);
    }

    /** Changes of an earlier container of the same name (another {@code _rid}): the job must leave them out. */
    private void publishEarlierContainer(ContainerTopic topic, KafkaBroker broker) throws Exception {
        ContainerProperties earlier = new ContainerProperties(CONTAINER, "/pk", null, -1, 4, "rid-before", null,
                null);
        topic.publish(new ChangeEnvelope(KafkaBridgeConfig.defaults(broker.bootstrapServers()), earlier),
                new OrdersWorkload(earlier).next(20));
    }
}
