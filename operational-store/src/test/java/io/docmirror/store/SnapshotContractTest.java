package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A container snapshot's contract, run against every {@link SnapshotSource}: in process and over HTTP. The intervals
 * a log partition is split into, read one after the other, must be exactly what the single-machine backfill reads
 * (the partition's {@link PartitionSnapshot}, and the scan's key order), item for item.
 */
abstract class SnapshotContractTest {
    static final String ORDERS = "orders";
    static final int LOG_PARTITIONS = 3;

    @TempDir
    Path dataDir;

    final TestingClock clock = TestingClock.atEpochSecond(1_767_225_600);
    EmbeddedStore store;
    SnapshotSource snapshots;

    /** The snapshots of {@code store} as the implementation under test gives them. */
    abstract SnapshotSource snapshotsOf(EmbeddedStore store);

    /** Stops what {@link #snapshotsOf} started. */
    abstract void closeSnapshots();

    @BeforeEach
    void setUp() {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false), clock, false);
        store.createContainer(ContainerProperties.of(ORDERS, "/customerId").withDefaultTtl(-1)
                .withLogPartitions(LOG_PARTITIONS));
        snapshots = snapshotsOf(store);
    }

    @AfterEach
    void tearDown() {
        closeSnapshots();
        store.close();
    }

    @Test
    void intervalsReadInOrderAreThePartitionItemForItem() {
        writeOrders(40);
        List<List<String>> expected = embeddedPartitions(ORDERS);

        for (int maxIntervals : new int[] {1, 2, 3, 7, 100, Integer.MAX_VALUE}) {
            try (StoreSnapshot snapshot = snapshots.openSnapshot(ORDERS)) {
                assertThat(snapshot.container()).isEqualTo(ORDERS);
                assertThat(snapshot.logPartitions()).isEqualTo(LOG_PARTITIONS);
                for (int logPartition = 0; logPartition < LOG_PARTITIONS; logPartition++) {
                    List<SnapshotInterval> intervals = snapshot.split(logPartition, maxIntervals);
                    assertThat(intervals)
                            .hasSizeBetween(1, Math.min(maxIntervals, SnapshotReader.MAX_SPLIT_INTERVALS));
                    assertContiguous(intervals);
                    assertThat(readAll(snapshot, intervals, 3))
                            .as("log partition %d in %d intervals %s", logPartition, maxIntervals, intervals)
                            .isEqualTo(expected.get(logPartition));
                }
            }
        }
        // The single-machine reader over the same source gives the same, too.
        for (int logPartition = 0; logPartition < LOG_PARTITIONS; logPartition++) {
            try (PartitionSnapshot partition = snapshots.snapshot(ORDERS, logPartition)) {
                List<String> read = new ArrayList<>();
                for (List<ChangeEvent> page = partition.next(5); !page.isEmpty(); page = partition.next(5)) {
                    page.forEach(event -> read.add(describe(event)));
                }
                assertThat(read).isEqualTo(expected.get(logPartition));
                assertThat(partition.lsn()).isEqualTo(store.scanItems(ORDERS, logPartition, Optional.empty(), 1)
                        .logEndLsn());
            }
        }
    }

    @Test
    void aSnapshotSpellsEachPartitionKeyAsTheItemAndItsChangeLogDo() {
        // The storage key holds a number by value (100 as 1E+2): a backfill must write the _pk the change feed does.
        store.createContainer(ContainerProperties.of("numbers", "/key/value").withLogPartitions(1));
        String[] keys = {"100", "1.10", "12345678901234567890", "-0", "1e2", "2E-3", "\"text\"", "true", "null"};
        for (int index = 0; index < keys.length; index++) {
            store.createItem("numbers", "{\"id\":\"i" + index + "\",\"before\":{\"value\":[1,{\"value\":2}]},"
                    + "\"key\":{\"other\":3,\"value\":" + keys[index] + "}}");
        }
        store.createItem("numbers", "{\"id\":\"none\"}");
        Map<String, String> logged = new TreeMap<>();
        StoreTesting.changeLog(store, "numbers")
                .forEach(event -> logged.put(event.id(), event.partitionKey().jsonText()));

        Map<String, String> snapshotted = new TreeMap<>();
        try (StoreSnapshot snapshot = snapshots.openSnapshot("numbers")) {
            snapshot.read(SnapshotInterval.wholePartition(0), Optional.empty(), 100).events()
                    .forEach(event -> snapshotted.put(event.id(), event.partitionKey().jsonText()));
        }

        assertThat(snapshotted).isEqualTo(logged).containsEntry("i0", "100").containsEntry("i1", "1.10")
                .containsEntry("i2", "12345678901234567890").containsEntry("i4", "1e2").containsEntry("none", "{}");
    }

    @Test
    void anEmptyPartitionIsOneEmptyIntervalAtLsnZero() {
        store.createContainer(ContainerProperties.of("empty", "/pk").withLogPartitions(2));

        try (StoreSnapshot snapshot = snapshots.openSnapshot("empty")) {
            assertThat(snapshot.lsn(0)).isZero();
            assertThat(snapshot.lsn(1)).isZero();
            List<SnapshotInterval> intervals = snapshot.split(1, 5);
            assertThat(intervals).containsExactly(SnapshotInterval.wholePartition(1));
            SnapshotPage page = snapshot.read(intervals.get(0), Optional.empty(), 10);
            assertThat(page.events()).isEmpty();
            assertThat(page.continuation()).isEmpty();
        }
    }

    @Test
    void writesAfterTheSnapshotAreNotSeenAndItsLsnsAreThoseOfItsCreation() {
        writeOrders(30);
        List<List<String>> expected = embeddedPartitions(ORDERS);
        long[] logEnds = new long[LOG_PARTITIONS];
        for (int logPartition = 0; logPartition < LOG_PARTITIONS; logPartition++) {
            logEnds[logPartition] = store.scanItems(ORDERS, logPartition, Optional.empty(), 1).logEndLsn();
        }

        try (StoreSnapshot snapshot = snapshots.openSnapshot(ORDERS)) {
            // A change, a delete and new items in every log partition, none of which the snapshot may show.
            for (int index = 0; index < 10; index++) {
                store.upsertItem(ORDERS, order("o" + index, index % 10, "changed"));
                store.createItem(ORDERS, order("late" + index, index, "late"));
            }
            store.deleteItem(ORDERS, PartitionKey.of("c7"), "o7", Precondition.NONE);

            for (int logPartition = 0; logPartition < LOG_PARTITIONS; logPartition++) {
                assertThat(snapshot.lsn(logPartition)).isEqualTo(logEnds[logPartition]);
                assertThat(readAll(snapshot, snapshot.split(logPartition, 2), 4))
                        .isEqualTo(expected.get(logPartition));
            }
        }
    }

    @Test
    void aLargePartitionIsSplitBySizeEstimatesAndReadInParallel() throws Exception {
        store.createContainer(ContainerProperties.of("big", "/pk").withLogPartitions(1));
        List<byte[]> documents = new ArrayList<>();
        for (int index = 0; index < KeyRangeSplitter.COUNTED_KEYS + 2000; index++) {
            documents.add(("{\"id\":\"i" + index + "\",\"pk\":\"p" + (index % 500) + "\",\"n\":" + index + "}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        store.bulkWrite("big", documents, BulkOptions.CREATE);
        List<String> expected = embeddedPartitions("big").get(0);

        ExecutorService readers = Executors.newFixedThreadPool(4);
        try (StoreSnapshot snapshot = snapshots.openSnapshot("big")) {
            List<SnapshotInterval> intervals = snapshot.split(0, 4);
            assertThat(intervals).hasSizeBetween(1, 4);
            assertContiguous(intervals);
            List<Future<List<String>>> parts = new ArrayList<>();
            for (SnapshotInterval interval : intervals) {
                parts.add(readers.submit(() -> readAll(snapshot, List.of(interval), 1000)));
            }
            List<String> read = new ArrayList<>();
            List<Integer> sizes = new ArrayList<>();
            for (Future<List<String>> part : parts) {
                read.addAll(part.get());
                sizes.add(part.get().size());
            }
            assertThat(read).isEqualTo(expected);
            // Similar sizes, not equal ones: no interval holds half of the items.
            assertThat(sizes).as("items per interval").allMatch(size -> size < expected.size() / 2);
        } finally {
            readers.shutdownNow();
        }
    }

    @Test
    void refusesWhatIsNotAPositionOfTheSnapshot() {
        writeOrders(30);
        try (StoreSnapshot snapshot = snapshots.openSnapshot(ORDERS)) {
            SnapshotInterval whole = SnapshotInterval.wholePartition(0);
            assertBadRequest(() -> snapshot.split(LOG_PARTITIONS, 2), "log partition");
            assertBadRequest(() -> snapshot.split(0, 0), "");
            assertBadRequest(() -> snapshot.read(SnapshotInterval.wholePartition(LOG_PARTITIONS), Optional.empty(), 5),
                    "log partition");
            assertBadRequest(() -> snapshot.read(SnapshotInterval.of(0, Optional.of("not base64!"), Optional.empty()),
                    Optional.empty(), 5), "split point");
            assertBadRequest(() -> snapshot.read(whole, Optional.of("*"), 5), "continuation");
            assertBadRequest(() -> snapshot.read(SnapshotInterval.of(0, Optional.of("Zg"), Optional.of("AA")),
                    Optional.empty(), 5), "start is after its end");
            // A continuation from one interval is refused by another that does not hold it.
            int fullest = 0;
            for (int logPartition = 1; logPartition < LOG_PARTITIONS; logPartition++) {
                if (store.scanItems(ORDERS, logPartition, Optional.empty(), 100).items().size()
                        > store.scanItems(ORDERS, fullest, Optional.empty(), 100).items().size()) {
                    fullest = logPartition;
                }
            }
            SnapshotPage first = snapshot.read(SnapshotInterval.wholePartition(fullest), Optional.empty(), 1);
            assertThat(first.continuation()).as("log partition %d holds more than one order", fullest).isPresent();
            assertBadRequest(() -> snapshot.read(SnapshotInterval.of(0, Optional.of("_w"), Optional.empty()),
                    first.continuation(), 5), "outside the interval");
        }
    }

    @Test
    void aClosedSnapshotIsGone() {
        writeOrders(3);
        StoreSnapshot snapshot = snapshots.openSnapshot(ORDERS);
        snapshot.close();
        snapshot.close();

        assertThatThrownBy(() -> snapshot.read(SnapshotInterval.wholePartition(0), Optional.empty(), 5))
                .isInstanceOfSatisfying(StoreException.class,
                        e -> assertThat(e.code()).isEqualTo(StoreErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> snapshots.openSnapshot("missing")).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.code()).isEqualTo(StoreErrorCode.NOT_FOUND));
    }

    /** Orders of 10 customers, some replaced, one deleted and one expired by its TTL. */
    void writeOrders(int count) {
        for (int index = 0; index < count; index++) {
            store.createItem(ORDERS, order("o" + index, index % 10, "first"));
        }
        for (int index = 0; index < count; index += 3) {
            store.upsertItem(ORDERS, order("o" + index, index % 10, "second"));
        }
        store.deleteItem(ORDERS, PartitionKey.of("c1"), "o1", Precondition.NONE);
        store.createItem(ORDERS, "{\"id\":\"short\",\"customerId\":\"c2\",\"ttl\":10}");
        clock.advanceSeconds(10);
    }

    static String order(String id, int customer, String note) {
        // Numbers as written (1.50, 1e2) must come back as written.
        return "{\"id\":\"" + id + "\",\"customerId\":\"c" + customer + "\",\"note\":\"" + note
                + "\",\"total\":1.50,\"big\":1e2,\"lines\":[{\"sku\":\"s\",\"qty\":2}]}";
    }

    /** Each log partition as the embedded store's single-machine snapshot reads it, checked against its scan. */
    List<List<String>> embeddedPartitions(String container) {
        List<List<String>> partitions = new ArrayList<>();
        for (int logPartition = 0; logPartition < store.readContainer(container).logPartitions(); logPartition++) {
            List<String> events = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            try (PartitionSnapshot snapshot = store.snapshot(container, logPartition)) {
                for (List<ChangeEvent> page = snapshot.next(100); !page.isEmpty(); page = snapshot.next(100)) {
                    page.forEach(event -> {
                        events.add(describe(event));
                        ids.add(event.id());
                    });
                }
            }
            List<String> scanned = new ArrayList<>();
            Optional<String> continuation = Optional.empty();
            do {
                ItemPage page = store.scanItems(container, logPartition, continuation, 1000);
                page.items().forEach(item -> scanned.add(item.id()));
                continuation = page.continuation();
            } while (continuation.isPresent());
            assertThat(ids).isEqualTo(scanned);
            partitions.add(events);
        }
        return partitions;
    }

    static List<String> readAll(SnapshotReader snapshot, List<SnapshotInterval> intervals, int pageSize) {
        List<String> read = new ArrayList<>();
        for (SnapshotInterval interval : intervals) {
            Optional<String> continuation = Optional.empty();
            do {
                SnapshotPage page = snapshot.read(interval, continuation, pageSize);
                assertThat(page.events().size()).isLessThanOrEqualTo(pageSize);
                page.events().forEach(event -> read.add(describe(event)));
                continuation = page.continuation();
            } while (continuation.isPresent());
        }
        return read;
    }

    static void assertContiguous(List<SnapshotInterval> intervals) {
        assertThat(intervals.get(0).from()).isEmpty();
        assertThat(intervals.get(intervals.size() - 1).until()).isEmpty();
        for (int index = 1; index < intervals.size(); index++) {
            assertThat(intervals.get(index).from()).isPresent().isEqualTo(intervals.get(index - 1).until());
        }
    }

    /** Everything a backfill takes from an event, the document as its exact bytes. */
    static String describe(ChangeEvent event) {
        return event.container() + "|" + event.partitionKey() + "|" + event.id() + "|" + event.operation() + "|"
                + event.lsn() + "|" + event.ts() + "|" + event.ttlExpired() + "|"
                + new String(event.documentJson().orElseThrow(), StandardCharsets.UTF_8) + "|"
                + event.previousJson().map(json -> new String(json, StandardCharsets.UTF_8)).orElse("-");
    }

    static void assertBadRequest(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(StoreErrorCode.BAD_REQUEST);
            assertThat(e.getMessage()).contains(message);
        });
    }
}
