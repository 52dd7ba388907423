package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaPlan;
import io.docmirror.flatten.SchemaScan;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.iceberg.BackfillInParts;
import io.docmirror.mirror.iceberg.RemoteWriteTarget;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.iceberg.PartWriter;
import io.docmirror.mirror.iceberg.WrittenPart;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionSnapshot;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A backfill written in parts ({@link BackfillInParts}, as a Spark job's executors write it) makes exactly the tables a
 * single-machine backfill makes of the same snapshot, however the feed ranges are cut: the same flattener schema
 * (columns, types, variants, child tables, the column limit, the tallies), the same rows in every table, and a
 * change feed that streams on from the snapshot with no gap and no duplicate. What travels between the driver and
 * the part writers goes through Java serialization here, as it does in Spark.
 */
class BackfillInPartsTest {
    private static final String CONTAINER = "docs";
    private static final MirrorConfig CONFIG = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0"));
    private static final FlattenerConfig FLATTENER = FlattenerConfig.defaults(CONTAINER);

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    /** How many documents the store holds. */
    private long documents;

    @BeforeEach
    void loadStore() throws IOException {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of(CONTAINER, "/pk").withAnalyticalTtl(-1).withLogPartitions(4));
        documents = MixedDocuments.write(store, CONTAINER);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void partsCutAnywhereMakeTheTablesOfASingleMachineBackfill() throws Exception {
        Path single = work.resolve("single");
        new Backfill(store, single, CONFIG, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);

        Path inParts = work.resolve("in-parts");
        // The store's order needs more than two rounds: a part's first scan, from an empty schema, misses
        // documents that change the whole container's schema.
        Map<Integer, Long> rangeLsns = backfillInParts(inParts, 3, 3);

        SameTables.assertSame(inParts, single, CONTAINER);
        assertThat(MirrorSql.query(inParts, CONTAINER, "SELECT count(*) FROM docs"))
                .containsExactly(List.of(documents));

        // The hand-over: the change feed goes on from each range's snapshot LSN, so both mirrors stream on alike.
        assertThat(rangeLsns).containsOnlyKeys(0, 1, 2, 3);
        store.upsertItem(CONTAINER, "{\"id\":\"json_schema_test_suite-0\",\"pk\":\"p0\",\"price\":\"later\"}");
        store.upsertItem(CONTAINER, "{\"id\":\"after\",\"pk\":\"p2\",\"price\":3.25}");
        store.deleteItem(CONTAINER, PartitionKey.of("p1"), "wide");
        for (Path mirror : List.of(single, inParts)) {
            try (FeedMirror daemon = new FeedMirror(store, mirror, CONFIG, FlattenerConfig::defaults, clock)) {
                daemon.sync();
            }
        }
        SameTables.assertSame(inParts, single, CONTAINER);
        ReconcileReport report = new Reconciler(store, inParts, clock, 5).reconcile(CONTAINER);
        assertThat(report.differences()).as(report.toString()).isEmpty();
        assertThat(report.exact()).isTrue();
    }

    @Test
    void aBackfillInPartsReplacesAMirrorInOneCommit() throws Exception {
        Path mirror = work.resolve("mirror");
        try (FeedMirror daemon = new FeedMirror(store, mirror, CONFIG, FlattenerConfig::defaults, clock)) {
            daemon.sync();
        }
        long before = MirrorFiles.batch(mirror, CONTAINER);
        backfillInParts(mirror, 2, 2);
        assertThat(MirrorFiles.batch(mirror, CONTAINER)).isEqualTo(before + 1);
        Path single = work.resolve("single");
        new Backfill(store, single, CONFIG, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);
        SameTables.assertSame(mirror, single, CONTAINER);
    }

    @Test
    void aPartWrittenFromAnotherStartIsRefusedAndTheAbandonedBackfillLeavesNothing() throws Exception {
        Path mirror = work.resolve("mirror");
        List<List<ChangeEvent>> parts = new ArrayList<>();
        snapshot(2, parts);
        SchemaPlan plan = plan(parts);
        try (ContainerTables tables = ContainerTables.openForReplacingBackfill(mirror, store.readContainer(CONTAINER),
                FLATTENER, CONFIG, clock)) {
            BackfillInParts backfill = tables.beginBackfillInParts(plan);
            WrittenPart first = write(backfill.target(), backfill.startOf(0), parts.get(0));
            backfill.add(0, first);
            // The first part handed back again as the second: it ends where the second starts, not where it ends.
            assertThatThrownBy(() -> backfill.add(1, first)).isInstanceOfSatisfying(MirrorException.class,
                    failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.INTERNAL_ERROR))
                    .hasMessageContaining("Part 1 of the backfill of docs ended with another schema");
            backfill.abort();
        }
        assertThat(ContainerSnapshot.read(mirror, CONTAINER)).isEmpty();
        assertThat(MirrorFiles.parquetFiles(mirror, CONTAINER)).as("files of the abandoned backfill").isEmpty();
    }

    @Test
    void partsWrittenFromAGuessedPlanFitOnlyWhereTheGuessWasRightAndTheRestLeaveNothing() throws Exception {
        Path mirror = work.resolve("mirror");
        List<List<ChangeEvent>> parts = new ArrayList<>();
        snapshot(3, parts);
        SchemaPlan plan = new SchemaPlan(FLATTENER, parts.size());
        scanRound(plan, parts);
        assertThat(plan.settled()).isFalse();
        try (ContainerTables tables = ContainerTables.openForReplacingBackfill(mirror, store.readContainer(CONTAINER),
                FLATTENER, CONFIG, clock)) {
            BackfillInParts backfill = tables.beginBackfillInParts(plan);
            List<WrittenPart> written = new ArrayList<>();
            for (int part = 0; part < parts.size(); part++) {
                written.add(write(backfill.target(), backfill.startOf(part), parts.get(part), true));
            }
            // Part 0 starts from the empty schema, exactly; some later guess is wrong on these documents.
            assertThat(backfill.fits(0, written.get(0))).isTrue();
            int misfits = 0;
            for (int part = 0; part < parts.size(); part++) {
                misfits += backfill.fits(part, written.get(part)) ? 0 : 1;
            }
            assertThat(misfits).isPositive();
            written.forEach(backfill::discard);
            backfill.abort();
        }
        assertThat(MirrorFiles.parquetFiles(mirror, CONTAINER)).as("files of the discarded parts").isEmpty();
    }

    /**
     * Backfills the container into {@code mirror}, each feed range cut into {@code cuts} parts; the ranges' LSNs.
     * Asserts that its schema plan took at least {@code rounds} rounds.
     */
    private Map<Integer, Long> backfillInParts(Path mirror, int cuts, int rounds) throws Exception {
        List<List<ChangeEvent>> parts = new ArrayList<>();
        Map<Integer, Long> rangeLsns = snapshot(cuts, parts);
        SchemaPlan plan = plan(parts);
        assertThat(plan.rounds()).isGreaterThanOrEqualTo(rounds);
        try (ContainerTables tables = ContainerTables.openForReplacingBackfill(mirror, store.readContainer(CONTAINER),
                FLATTENER, CONFIG, clock)) {
            BackfillInParts backfill = tables.beginBackfillInParts(plan);
            assertThat(backfill.parts()).isEqualTo(parts.size());
            RemoteWriteTarget target = travel(backfill.target());
            // Written in any order, as executors finish them; taken in order.
            WrittenPart[] written = new WrittenPart[parts.size()];
            for (int part = parts.size() - 1; part >= 0; part--) {
                written[part] = travel(write(target, travel(backfill.startOf(part)), parts.get(part)));
            }
            for (int part = 0; part < parts.size(); part++) {
                backfill.add(part, written[part]);
            }
            backfill.commit(rangeLsns);
        }
        return rangeLsns;
    }

    /** Each feed range's snapshot, cut into {@code cuts} parts of uneven sizes (an empty one among them). */
    private Map<Integer, Long> snapshot(int cuts, List<List<ChangeEvent>> parts) {
        Map<Integer, Long> rangeLsns = new TreeMap<>();
        for (int range = 0; range < 4; range++) {
            List<ChangeEvent> items = new ArrayList<>();
            try (PartitionSnapshot snapshot = store.snapshot(CONTAINER, range)) {
                for (List<ChangeEvent> page = snapshot.next(100); !page.isEmpty(); page = snapshot.next(100)) {
                    items.addAll(page);
                }
                rangeLsns.put(range, snapshot.lsn());
            }
            int from = 0;
            for (int cut = 1; cut <= cuts; cut++) {
                int to = cut == cuts ? items.size() : items.size() * cut * cut / (cuts * cuts);
                parts.add(items.subList(from, to));
                from = to;
            }
            parts.add(List.of());
        }
        return rangeLsns;
    }

    /** The schema plan's rounds of scans until it settles. */
    private static SchemaPlan plan(List<List<ChangeEvent>> parts) throws Exception {
        SchemaPlan plan = new SchemaPlan(FLATTENER, parts.size());
        while (!plan.settled()) {
            scanRound(plan, parts);
        }
        return plan;
    }

    /** One round of the plan's scans, each part's result sent back as an executor's would be. */
    private static void scanRound(SchemaPlan plan, List<List<ChangeEvent>> parts) throws Exception {
        List<SchemaScan.Result> results = new ArrayList<>();
        for (int part : plan.partsToScan()) {
            SchemaScan scan = new SchemaScan(travel(plan.startOf(part)), FLATTENER);
            for (ChangeEvent item : parts.get(part)) {
                scan.add(CONTAINER, item.partitionKey().jsonText(), item.lsn(), item.documentJson().orElseThrow());
            }
            results.add(travel(scan.result()));
        }
        plan.scanned(results);
    }

    private static WrittenPart write(RemoteWriteTarget target, String start, List<ChangeEvent> part) {
        return write(target, start, part, false);
    }

    private static WrittenPart write(RemoteWriteTarget target, String start, List<ChangeEvent> part, boolean guessed) {
        try (PartWriter writer = new PartWriter(target, start, guessed)) {
            part.forEach(writer::add);
            return writer.finish();
        }
    }

    /** {@code value} after a trip through Java serialization, as between a Spark driver and its executors. */
    @SuppressWarnings("unchecked")
    private static <T extends Serializable> T travel(T value) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (T) in.readObject();
        }
    }
}
