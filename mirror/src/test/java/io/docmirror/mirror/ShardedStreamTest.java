package io.docmirror.mirror;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.iceberg.RowPlace;
import io.docmirror.mirror.iceberg.ShardWriter;
import io.docmirror.mirror.iceberg.ShardedBatch;
import io.docmirror.mirror.iceberg.WrittenShard;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A scaled-out stream's writers and committer ({@link ShardWriter}, {@link ShardedBatch}), driven as the Flink job
 * drives them but in one thread: changes go to the writer of their document's key, a change whose document needs the
 * schema to change is held (with every later change of its document) until a commit decides it, and each checkpoint
 * is one commit of every writer's files. One writer writes exactly the tables `mirror run` writes; several writers
 * leave the mirror exact (TTL expiries keep their rows, as in `mirror run`), columns widening as they go; and a
 * container moves between the two in both directions.
 */
class ShardedStreamTest {
    private static final String CONTAINER = "orders";
    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(Instant.now().getEpochSecond());
    /** Seeded and reproducible; {@code -Ddocmirror.sharded.seed=N} runs another seed. */
    private static final long SEED = Long.getLong("docmirror.sharded.seed", 20261129L);

    private EmbeddedStore store;
    private OrderChanges changes;

    @BeforeEach
    void openStore() {
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false), clock, false);
        changes = new OrderChanges(store, CONTAINER, clock, new Random(SEED));
    }

    private void createContainer(int feedRanges) {
        store.createContainer(new ContainerProperties(CONTAINER, "/pk", -1, -1, feedRanges));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void oneWriterWritesTheTablesMirrorRunWrites() throws Exception {
        // One feed range: the feed's order is the order of its LSNs, however many changes each read takes.
        createContainer(1);
        Path sharded = work.resolve("sharded");
        Path single = work.resolve("single");
        for (int step = 0; step < 4; step++) {
            changes.write(60);
            try (Shards shards = new Shards(sharded, 1)) {
                shards.compactEvery = 2;
                shards.streamToTheEnd(25);
            }
        }
        sync(single);

        SameTables.assertSameButSamples(sharded, single, CONTAINER);
        assertExact(sharded, "one writer");
    }

    /**
     * Several writers leave the mirror exact, through numbers that widen columns: the committer copies the files
     * holding the old column's values, keeping each row's position, and the writers find the rows they knew in the
     * copies. One writer learns of commits late (as a Flink writer that reads the catalog only now and then), so its
     * shards name rows of files copied since and hold files written against the narrower column, which the committer
     * brings up to date. Then the container moves to `mirror run`, and back to two writers.
     */
    @Test
    void severalWritersOneLaggingLeaveTheMirrorExactThroughWideningsAndHandOvers() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        // The first values are whole numbers, committed before any other: the columns start as BIGINT, and a
        // widening then copies the files holding their values.
        changes.createShaped("1");
        try (Shards shards = new Shards(mirror, 3)) {
            shards.streamToTheEnd(25);
        }
        for (int step = 0; step < 2; step++) {
            changes.write(80);
            try (Shards shards = new Shards(mirror, 3)) {
                shards.lagging = shards.writers.get(0);
                shards.compactEvery = 3;
                shards.streamToTheEnd(25);
            }
            assertExact(mirror, "three writers, one lagging, step " + step);
        }
        try (MirrorSql sql = MirrorSql.open(mirror, CONTAINER)) {
            assertThat(sql.rows("SELECT DISTINCT typeof(shape) FROM orders").toString())
                    .as("the shape column, widened from BIGINT").matches("\\[\\[(DOUBLE|DECIMAL\\(\\d+,\\d+\\))]]");
        }

        changes.write(40);
        sync(mirror);
        assertExact(mirror, "mirror run after the writers");
        changes.write(40);
        try (Shards shards = new Shards(mirror, 2)) {
            shards.streamToTheEnd(20);
        }
        assertExact(mirror, "two writers after mirror run");
    }

    /**
     * A writer that learns of a widening late: it applies a change against the narrower column, replacing a row of a
     * file the widening copied, into a file holding the narrower column's values. The committer finds the row in the
     * copy and copies the writer's new file.
     */
    @Test
    void aWriterThatLearnsOfAWideningLateHasItsShardBroughtUpToDate() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        String late;
        String other;
        try (Shards shards = new Shards(mirror, 3)) {
            late = shards.idWrittenBy(0, "late");
            other = shards.idWrittenBy(1, "other");
            store.createItem(CONTAINER, "{\"id\":\"" + late + "\",\"pk\":\"c1\",\"shape\":1}");
            store.createItem(CONTAINER, "{\"id\":\"" + other + "\",\"pk\":\"c1\",\"shape\":2}");
            shards.streamToTheEnd(10);

            shards.frozen = shards.writers.get(0);
            store.upsertItem(CONTAINER, "{\"id\":\"" + other + "\",\"pk\":\"c1\",\"shape\":2.5}");
            shards.streamToTheEnd(10);
            // Fits the BIGINT column the late writer still writes against.
            store.upsertItem(CONTAINER, "{\"id\":\"" + late + "\",\"pk\":\"c1\",\"shape\":7}");
            shards.streamToTheEnd(10);
            shards.frozen = null;
        }
        ReconcileReport report = new Reconciler(store, mirror, clock, 5).reconcile(CONTAINER);
        assertThat(report.differences()).as("%s", report).isEmpty();
        assertThat(report.exact()).as("%s", report).isTrue();
        try (MirrorSql sql = MirrorSql.open(mirror, CONTAINER)) {
            assertThat(sql.rows("SELECT id, shape FROM orders ORDER BY id").toString())
                    .isEqualTo("[[" + late + ", 7.0], [" + other + ", 2.5]]");
        }
    }

    /**
     * A commit that decides the schema for changes its writers apply only with the next commit has a feed position
     * that passes them: `mirror run` refuses to take the container over from it, and does from the next.
     */
    @Test
    void mirrorRunRefusesToTakeOverFromACommitWhoseWritersHoldChanges() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        changes.write(30);
        try (Shards shards = new Shards(mirror, 2)) {
            shards.streamToTheEnd(10);
            store.createItem(CONTAINER, "{\"id\":\"new-path\",\"pk\":\"c1\",\"aColumnNoOrderHas\":1}");
            shards.source.read(10).events().forEach(shards::take);
            shards.commit(shards.source.checkpoint());

            // The job stops here: its committer lets the container go, its writers' state is kept.
            shards.tables.close();
            assertThatThrownBy(() -> sync(mirror)).isInstanceOf(MirrorException.class)
                    .hasMessageContaining("1 change(s) to apply still");
            // Restored, the job applies what its writers held, and its next commit leaves none.
            shards.tables = ContainerTables.openForShardedStream(mirror, CONTAINER,
                    FlattenerConfig.defaults(CONTAINER), MirrorConfig.defaults());
            shards.streamToTheEnd(10);
        }
        sync(mirror);
        ReconcileReport report = new Reconciler(store, mirror, clock, 5).reconcile(CONTAINER);
        assertThat(report.exact()).as("%s", report).isTrue();
    }

    /** A commit that fails is tried again with the same shards (a restored Flink committer does): their files stay. */
    @Test
    void aCommitTriedAgainAfterAnAbortTakesTheSameShards() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        changes.write(60);
        try (Shards shards = new Shards(mirror, 2)) {
            shards.abortEachCommitOnce = true;
            shards.streamToTheEnd(20);
        }
        assertExact(mirror, "each commit aborted once and tried again");
    }

    @Test
    void aDocumentThatCannotBeMirroredGoesToTheDeadLettersEvenBeforeTheTablesHaveThem() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        store.createItem(CONTAINER, "{\"id\":\"o1\",\"pk\":\"c1\",\"status\":\"new\"}");
        sync(mirror);
        // Only a source other than the store (a Kafka topic, say) can deliver such a document: its id is a number.
        ChangeEvent numericId = new ChangeEvent(CONTAINER, PartitionKeyValue.of(TextNode.valueOf("c2")), "7",
                Operation.CREATE, 100, 1000, false, Optional.of((ObjectNode) StoreJson.mapper().readTree("{\"id\":7,\"pk\":\"c2\"}")),
                Optional.empty());
        ChangeEvent good = new ChangeEvent(CONTAINER, PartitionKeyValue.of(TextNode.valueOf("c3")), "o2",
                Operation.CREATE, 101, 2000, false,
                Optional.of((ObjectNode) StoreJson.mapper().readTree("{\"id\":\"o2\",\"pk\":\"c3\",\"status\":\"paid\"}")), Optional.empty());

        try (Shards shards = new Shards(mirror, 2)) {
            shards.take(numericId);
            shards.take(good);
            Checkpoint position = shards.committedPosition();
            shards.commit(position);
            shards.commit(position);
        }

        try (MirrorSql sql = MirrorSql.open(mirror, CONTAINER)) {
            assertThat(sql.rows("SELECT id, status FROM orders ORDER BY id"))
                    .containsExactly(List.of("o1", "new"), List.of("o2", "paid"));
            assertThat(sql.rows("SELECT id, _lsn, reason FROM dead_letters"))
                    .containsExactly(Arrays.asList(null, 100L, "the document has no string id"));
            assertThat(sql.rows("SELECT id, _lsn FROM orders_history ORDER BY _lsn")).as("the history").hasSize(3);
        }
    }

    private void assertExact(Path mirror, String when) {
        ReconcileReport report = new Reconciler(store, mirror, clock, 5).reconcile(CONTAINER);
        assertThat(report.differences()).as("%s, seed %d: %s", when, SEED, report).isEmpty();
        assertThat(report.exact()).as("%s: %s", when, report).isTrue();
        assertThat(report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum())
                .as("%s: the mirror's documents, the expired ones kept", when).isEqualTo(changes.mirrored());
    }

    private void sync(Path mirror) {
        MirrorConfig config = MirrorConfig.defaults().withBatch(17, Duration.ofHours(1));
        try (FeedMirror feedMirror = new FeedMirror(store, mirror, config, FlattenerConfig::defaults, clock)) {
            feedMirror.sync();
        }
    }

    /**
     * The Flink job's writers and committer in one thread. Each writer keeps its documents' rows (the job's keyed
     * state) and the changes it holds for a schema decision; a checkpoint commits every writer's files at once.
     */
    private final class Shards implements AutoCloseable {
        private ContainerTables tables;
        private final ChangeSource source;
        private final List<Writer> writers = new ArrayList<>();
        private long checkpoint;
        /** A writer that learns of every other commit one commit late; null: none. */
        private Writer lagging;
        /** A writer that learns of no commit; null: none. */
        private Writer frozen;
        /** Whether each commit is first tried and aborted, then tried again with the same shards. */
        private boolean abortEachCommitOnce;
        /** Every how many commits the writers compact their files (as soon as two of a tier gather); 0: never. */
        private int compactEvery;

        Shards(Path mirror, int count) {
            tables = ContainerTables.openForShardedStream(mirror, CONTAINER, FlattenerConfig.defaults(CONTAINER),
                    MirrorConfig.defaults());
            source = EmbeddedFeedSource.open(store, store.readContainer(CONTAINER), tables.checkpoint());
            checkpoint = tables.batches();
            for (int index = 0; index < count; index++) {
                writers.add(new Writer(new ShardWriter(tables.shardTarget(checkpoint + 1), "w" + index + "of" + count)));
            }
            // Started on tables written before (by other writers, or by mirror run): where their rows are.
            tables.forEachDocumentRow((key, row) -> writerOf(key).rows
                    .computeIfAbsent(key, document -> new ArrayList<>()).add(row));
        }

        private Writer writerOf(String key) {
            return writers.get(Math.floorMod(key.hashCode(), writers.size()));
        }

        /** An id starting with {@code prefix} whose order, in partition {@code c1}, writer {@code index} writes. */
        String idWrittenBy(int index, String prefix) {
            for (int candidate = 0; ; candidate++) {
                String id = prefix + candidate;
                ChangeEvent event = new ChangeEvent(CONTAINER, PartitionKeyValue.of(TextNode.valueOf("c1")), id,
                        Operation.DELETE, 0, 0, false, Optional.empty(), Optional.empty());
                if (writerOf(ShardWriter.documentKey(event)) == writers.get(index)) {
                    return id;
                }
            }
        }

        /** Reads the feed to its end, committing every {@code perCheckpoint} changes. */
        void streamToTheEnd(int perCheckpoint) {
            while (true) {
                ChangeSource.Changes changes = source.read(perCheckpoint);
                changes.events().forEach(this::take);
                commit(source.checkpoint());
                if (changes.caughtUp() && writers.stream().allMatch(writer -> writer.held.isEmpty())
                        && (lagging == null || checkpoint % 2 == 0)) {
                    // What the writers applied after that commit, held until it decided the schema.
                    commit(source.checkpoint());
                    return;
                }
            }
        }

        /** Hands a change to the writer of its document. */
        void take(ChangeEvent event) {
            String key = ShardWriter.documentKey(event);
            writerOf(key).take(key, event);
        }

        /** A checkpoint: the schema decided for what the writers proposed, and every writer's files, committed. */
        void commit(Checkpoint feedPosition) {
            checkpoint++;
            List<ChangeEvent> proposed = new ArrayList<>();
            writers.forEach(writer -> {
                proposed.addAll(writer.proposed);
                writer.proposed.clear();
            });
            List<WrittenShard> written = writers.stream().map(writer -> writer.shard.finish()).toList();
            if (abortEachCommitOnce) {
                ShardedBatch failed = tables.beginShardedBatch();
                failed.decide(proposed);
                written.forEach(failed::add);
                failed.abort();
            }
            ShardedBatch batch = tables.beginShardedBatch();
            batch.decide(proposed);
            written.forEach(batch::add);
            batch.commit(feedPosition, Map.of("docmirror.test.checkpoint", Long.toString(checkpoint)));
            for (Writer writer : writers) {
                if (writer == lagging && checkpoint % 2 == 1 || writer == frozen) {
                    // It learns of this commit with the next.
                    continue;
                }
                writer.shard.retarget(tables.shardTarget(checkpoint + 1));
                writer.applyHeld(checkpoint);
                if (compactEvery > 0 && checkpoint % compactEvery == 0) {
                    // The tables hold every shard it handed over: it may plan a compaction.
                    writer.shard.compact(2, writer::moved);
                }
            }
        }

        Checkpoint committedPosition() {
            return tables.checkpoint();
        }

        @Override
        public void close() {
            writers.forEach(writer -> writer.shard.close());
            source.close();
            tables.close();
        }
    }

    /**
     * One writer: its shard writer, its documents' rows, and the changes it holds. A change whose document needs the
     * schema to change is held and proposed to the committer, and so is every later change of its document: the
     * committer decides them all in the order they came, as one flattener of the whole feed would have met them.
     */
    private static final class Writer {
        final ShardWriter shard;
        final Map<String, List<RowPlace>> rows = new HashMap<>();
        /** By document key, the changes held, each with the checkpoint it was proposed at. */
        final Map<String, Deque<Held>> held = new LinkedHashMap<>();
        /** The changes proposed since the last checkpoint, in the order they came. */
        final List<ChangeEvent> proposed = new ArrayList<>();
        long checkpoint;

        record Held(ChangeEvent event, long proposedAt) {
        }

        Writer(ShardWriter shard) {
            this.shard = shard;
        }

        void take(String key, ChangeEvent event) {
            Deque<Held> waiting = held.get(key);
            if (waiting == null) {
                ShardWriter.Applied applied = shard.apply(event, rows.getOrDefault(key, List.of()));
                if (applied.applied()) {
                    rows.put(key, applied.rows());
                    return;
                }
                waiting = new ArrayDeque<>();
                held.put(key, waiting);
            }
            waiting.add(propose(event));
        }

        /** A row of a document moved: the writer compacted its files. */
        void moved(String key, RowPlace from, RowPlace to) {
            List<RowPlace> places = new ArrayList<>(shard.current(rows.get(key)));
            assertThat(places).as("the rows of %s, one of which the compaction moved", key).contains(from);
            places.set(places.indexOf(from), to);
            rows.put(key, places);
        }

        private Held propose(ChangeEvent event) {
            proposed.add(event);
            return new Held(event, checkpoint + 1);
        }

        /** After the commit of {@code committed}: applies the held changes it decided, in order. */
        void applyHeld(long committed) {
            checkpoint = committed;
            for (var iterator = held.entrySet().iterator(); iterator.hasNext(); ) {
                var entry = iterator.next();
                String key = entry.getKey();
                Deque<Held> waiting = entry.getValue();
                while (!waiting.isEmpty() && waiting.peek().proposedAt() <= committed) {
                    ChangeEvent first = waiting.poll().event();
                    ShardWriter.Applied applied = shard.applyDecided(first, rows.getOrDefault(key, List.of()));
                    if (!applied.applied()) {
                        waiting.addFirst(propose(first));
                        break;
                    }
                    rows.put(key, applied.rows());
                }
                if (waiting.isEmpty()) {
                    iterator.remove();
                }
            }
        }
    }
}
