package io.docmirror.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.iceberg.RowPlace;
import io.docmirror.mirror.iceberg.ShardWriter;
import io.docmirror.mirror.iceberg.ShardedBatch;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import io.docmirror.store.PatchOperation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
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

/**
 * A scaled-out stream's writers and committer ({@link ShardWriter}, {@link ShardedBatch}), driven as the Flink job
 * drives them but in one thread: changes go to the writer of their document's key, a change whose document needs the
 * schema to change is held (with every later change of its document) until a commit decides it, and each checkpoint
 * is one commit of every writer's files. One writer writes exactly the tables `mirror run` writes; several writers
 * leave the mirror exact (TTL expiries keep their rows, as in `mirror run`); and a container moves between the two in
 * both directions.
 */
class ShardedStreamTest {
    private static final String CONTAINER = "orders";
    private static final List<String> SHAPES = List.of("\"text\"", "{\"a\":\"x\",\"b\":[\"y\"]}", "[\"x\",\"y\"]",
            "true", "null", "7", "{\"deep\":{\"deeper\":\"z\"}}");

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(Instant.now().getEpochSecond());
    /** Seeded and reproducible; {@code -Ddocmirror.sharded.seed=N} runs another seed. */
    private static final long SEED = Long.getLong("docmirror.sharded.seed", 20261129L);

    private final Random random = new Random(SEED);
    private final List<String[]> live = new ArrayList<>();
    private int nextDocument;
    /** Orders that expired in the store, whose rows the mirror keeps. */
    private int expired;
    private EmbeddedStore store;

    @BeforeEach
    void openStore() {
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false), clock, false);
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
            writeSomeChanges(60);
            try (Shards shards = new Shards(sharded, 1)) {
                shards.streamToTheEnd(25);
            }
        }
        sync(single);

        SameTables.assertSameButSamples(sharded, single, CONTAINER);
        assertExact(sharded, "one writer");
    }

    @Test
    void severalWritersLeaveTheMirrorExactAndHandOverToMirrorRunAndBack() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        for (int step = 0; step < 3; step++) {
            writeSomeChanges(80);
            try (Shards shards = new Shards(mirror, 3)) {
                shards.streamToTheEnd(30);
            }
            assertExact(mirror, "three writers, step " + step);
        }

        writeSomeChanges(50);
        sync(mirror);
        assertExact(mirror, "mirror run after the writers");

        writeSomeChanges(50);
        try (Shards shards = new Shards(mirror, 2)) {
            shards.streamToTheEnd(20);
        }
        assertExact(mirror, "two writers after mirror run");
    }

    @Test
    void aDocumentThatCannotBeMirroredGoesToTheDeadLettersEvenBeforeTheTablesHaveThem() throws Exception {
        createContainer(4);
        Path mirror = work.resolve("mirror");
        store.createItem(CONTAINER, "{\"id\":\"o1\",\"pk\":\"c1\",\"status\":\"new\"}");
        sync(mirror);
        // Only a source other than the store (a Kafka topic, say) can deliver such a document: its id is a number.
        ChangeEvent numericId = new ChangeEvent(CONTAINER, PartitionKeyValue.of(TextNode.valueOf("c2")), "7",
                Operation.CREATE, 100, 1000, false, Optional.of((ObjectNode) json("{\"id\":7,\"pk\":\"c2\"}")),
                Optional.empty());
        ChangeEvent good = new ChangeEvent(CONTAINER, PartitionKeyValue.of(TextNode.valueOf("c3")), "o2",
                Operation.CREATE, 101, 2000, false,
                Optional.of((ObjectNode) json("{\"id\":\"o2\",\"pk\":\"c3\",\"status\":\"paid\"}")), Optional.empty());

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
                .as("%s: the mirror's documents, the expired ones kept", when).isEqualTo(live.size() + expired);
    }

    private void sync(Path mirror) {
        MirrorConfig config = MirrorConfig.defaults().withBatch(17, Duration.ofHours(1));
        try (FeedMirror feedMirror = new FeedMirror(store, mirror, config, FlattenerConfig::defaults, clock)) {
            feedMirror.sync();
        }
    }

    /** Creates, upserts, patches that give one path every shape in turn (but no number a column must widen for). */
    private void writeSomeChanges(int changes) {
        for (int change = 0; change < changes; change++) {
            int kind = live.isEmpty() ? 0 : random.nextInt(9);
            switch (kind) {
                case 0, 1, 2 -> create();
                case 3 -> {
                    String[] key = live.get(random.nextInt(live.size()));
                    store.upsertItem(CONTAINER, VaryingOrders.order(random, key[1], key[0]).toString());
                }
                case 4, 5 -> {
                    String[] key = live.get(random.nextInt(live.size()));
                    String shape = SHAPES.get(random.nextInt(SHAPES.size()));
                    store.patchItem(CONTAINER, PartitionKey.of(key[0]), key[1],
                            List.of(PatchOperation.set("/shape", json(shape))));
                }
                case 6 -> {
                    String[] key = live.remove(random.nextInt(live.size()));
                    store.deleteItem(CONTAINER, PartitionKey.of(key[0]), key[1]);
                }
                case 7 -> expire();
                default -> create();
            }
        }
    }

    private static JsonNode json(String text) {
        try {
            return StoreJson.mapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(text, e);
        }
    }

    private void create() {
        live.add(create(null));
    }

    /** Creates an order; one with a {@code ttl} is not live: it expires. Returns its partition key and id. */
    private String[] create(Integer ttl) {
        String id = "o" + nextDocument;
        String partitionKey = "c" + nextDocument % 5;
        nextDocument++;
        ObjectNode order = VaryingOrders.order(random, id, partitionKey);
        if (ttl != null) {
            order.put("ttl", ttl);
        }
        store.createItem(CONTAINER, order.toString());
        return new String[] {partitionKey, id};
    }

    /** A short-lived order that expires in the store: a TTL delete, whose rows the mirror keeps. */
    private void expire() {
        create(1);
        clock.advanceSeconds(2);
        assertThat(store.reapExpired(1000)).as("orders the store expired").isPositive();
        expired++;
    }

    /**
     * The Flink job's writers and committer in one thread. Each writer keeps its documents' rows (the job's keyed
     * state) and the changes it holds for a schema decision; a checkpoint commits every writer's files at once.
     */
    private final class Shards implements AutoCloseable {
        private final ContainerTables tables;
        private final ChangeSource source;
        private final List<Writer> writers = new ArrayList<>();
        private long checkpoint;

        Shards(Path mirror, int count) {
            tables = ContainerTables.openForShardedStream(mirror, CONTAINER, FlattenerConfig.defaults(CONTAINER),
                    MirrorConfig.defaults());
            source = EmbeddedFeedSource.open(store, store.readContainer(CONTAINER), tables.checkpoint());
            checkpoint = tables.batches();
            for (int index = 0; index < count; index++) {
                writers.add(new Writer(new ShardWriter(tables.shardTarget(checkpoint + 1))));
            }
            // Started on tables written before (by other writers, or by mirror run): where their rows are.
            tables.forEachDocumentRow((key, row) -> writerOf(key).rows
                    .computeIfAbsent(key, document -> new ArrayList<>()).add(row));
        }

        private Writer writerOf(String key) {
            return writers.get(Math.floorMod(key.hashCode(), writers.size()));
        }

        /** Reads the feed to its end, committing every {@code perCheckpoint} changes. */
        void streamToTheEnd(int perCheckpoint) {
            while (true) {
                ChangeSource.Changes changes = source.read(perCheckpoint);
                changes.events().forEach(this::take);
                commit(source.checkpoint());
                if (changes.caughtUp() && writers.stream().allMatch(writer -> writer.held.isEmpty())) {
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
            ShardedBatch batch = tables.beginShardedBatch();
            List<ChangeEvent> proposed = new ArrayList<>();
            writers.forEach(writer -> {
                proposed.addAll(writer.proposed);
                writer.proposed.clear();
            });
            batch.decide(proposed);
            writers.forEach(writer -> batch.add(writer.shard.finish()));
            batch.commit(feedPosition, Map.of("docmirror.test.checkpoint", Long.toString(checkpoint)));
            for (Writer writer : writers) {
                writer.shard.retarget(tables.shardTarget(checkpoint + 1));
                writer.applyHeld(checkpoint);
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
