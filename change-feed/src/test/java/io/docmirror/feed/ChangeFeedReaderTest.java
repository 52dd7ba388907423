package io.docmirror.feed;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

class ChangeFeedReaderTest {
    @TempDir
    Path dataDir;

    TestingClock clock = TestingClock.atEpochSecond(1_767_225_600);
    EmbeddedStore store;

    @BeforeEach
    void setUp() {
        store = StoreTesting.openWithClock(dataDir, clock);
        store.createContainer(ContainerProperties.of("orders", "/customer"));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private static List<ChangeEvent> readAll(ChangeFeedReader reader, int pageSize) {
        List<ChangeEvent> events = new ArrayList<>();
        ChangeFeedPage page;
        do {
            page = reader.readNext(pageSize);
            events.addAll(page.events());
        } while (!page.caughtUp());
        return events;
    }

    private void upsert(String customer, String id, int version) {
        store.upsertItem("orders", "{\"id\":\"" + id + "\",\"customer\":\"" + customer + "\",\"version\":" + version + "}");
    }

    @Test
    void aFilteredPageReadsOnPastTheChangesItLeavesOutUntilItIsFull() {
        // One customer's changes among many others': a page of 3 of them reads on past the others' until it has 3.
        store.createContainer(ContainerProperties.of("one", "/customer").withLogPartitions(1));
        for (int index = 0; index < 12; index++) {
            store.upsertItem("one", "{\"id\":\"o" + index + "\",\"customer\":\""
                    + (index % 4 == 0 ? "wanted" : "other-" + index) + "\"}");
        }
        ChangeFeedReader reader = ChangeFeedReader.open(store, new FeedRange("one", 0),
                ChangeFeedMode.ALL_VERSIONS_AND_DELETES, StartFrom.beginning());
        Predicate<ChangeEvent> wanted = event -> event.partitionKey().toPartitionKey()
                .equals(PartitionKey.of("wanted"));
        ChangeFeedPage first = reader.readNext(2, wanted);
        assertThat(first.events()).extracting(ChangeEvent::id).containsExactly("o0", "o4");
        assertThat(first.caughtUp()).isFalse();
        // The position is the last change read, which is the last one kept: the next page starts right after it.
        assertThat(ContinuationToken.decode(first.continuation()).positions()).containsEntry(0, first.events().get(1).lsn());

        ChangeFeedPage second = reader.readNext(2, wanted);
        assertThat(second.events()).extracting(ChangeEvent::id).containsExactly("o8");
        assertThat(second.caughtUp()).as("fewer than asked only once the log is read to its end").isTrue();
    }

    @Test
    void changesOfEachPartitionKeyComeInOrderUnderConcurrentWriters() throws Exception {
        int writers = 4;
        int versions = 60;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> futures = new ArrayList<>();
        for (int writer = 0; writer < writers; writer++) {
            int customer = writer;
            futures.add(pool.submit(() -> {
                for (int version = 1; version <= versions; version++) {
                    upsert("customer-" + customer, "order-" + (version % 3), version);
                }
            }));
        }
        for (Future<?> future : futures) {
            future.get();
        }
        pool.shutdown();

        List<ChangeEvent> events = readAll(ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning()), 7);

        assertThat(events).hasSize(writers * versions);
        Map<String, Integer> lastVersion = new HashMap<>();
        for (ChangeEvent event : events) {
            String customer = event.partitionKey().toJson().textValue();
            int version = event.document().orElseThrow().get("version").intValue();
            assertThat(version).as("versions of %s in feed order", customer)
                    .isGreaterThan(lastVersion.getOrDefault(customer, 0));
            lastVersion.put(customer, version);
        }
    }

    @Test
    void aContinuationTokenResumesExactlyAfterWhatWasRead() {
        for (int index = 0; index < 50; index++) {
            upsert("customer-" + (index % 7), "order-" + index, 1);
        }
        ChangeFeedReader first = ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning());
        List<ChangeEvent> read = new ArrayList<>(first.readNext(20).events());
        String token = first.continuation();
        for (int index = 50; index < 80; index++) {
            upsert("customer-" + (index % 7), "order-" + index, 1);
        }

        ChangeFeedReader resumed = ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.continuation(token));
        read.addAll(readAll(resumed, 9));

        assertThat(read).extracting(ChangeEvent::id).doesNotHaveDuplicates().hasSize(80);
    }

    @Test
    void latestVersionModeGivesOnlyTheNewestVersionAndNoDeletes() {
        upsert("c1", "updated", 1);
        upsert("c1", "updated", 2);
        upsert("c1", "updated", 3);
        upsert("c2", "deleted", 1);
        upsert("c3", "untouched", 1);
        store.deleteItem("orders", PartitionKey.of("c2"), "deleted");

        List<ChangeEvent> events = readAll(ChangeFeedReader.open(store, "orders", ChangeFeedMode.LATEST_VERSION,
                StartFrom.beginning()), 100);

        assertThat(events).extracting(ChangeEvent::id, event -> event.document().orElseThrow().get("version").intValue())
                .containsExactlyInAnyOrder(tuple("updated", 3), tuple("untouched", 1));
    }

    @Test
    void allVersionsModeShowsDeletesAndFlagsTtlExpiries() {
        store.createContainer(ContainerProperties.of("sessions", "/user").withDefaultTtl(60));
        store.createItem("sessions", "{\"id\":\"s1\",\"user\":\"u\"}");
        store.createItem("sessions", "{\"id\":\"s2\",\"user\":\"u\"}");
        store.deleteItem("sessions", PartitionKey.of("u"), "s1");
        clock.advanceSeconds(61);
        store.reapExpired(100);

        List<ChangeEvent> events = readAll(ChangeFeedReader.open(store, "sessions",
                ChangeFeedMode.ALL_VERSIONS_AND_DELETES, StartFrom.beginning()), 100);

        assertThat(events).extracting(ChangeEvent::id, ChangeEvent::operation, ChangeEvent::ttlExpired)
                .containsExactly(tuple("s1", Operation.CREATE, false), tuple("s2", Operation.CREATE, false),
                        tuple("s1", Operation.DELETE, false), tuple("s2", Operation.DELETE, true));
        assertThat(events.get(3).previous()).isPresent();
    }

    @Test
    void startFromNowAndFromAPointInTime() {
        upsert("c1", "before", 1);
        clock.advanceSeconds(10);
        Instant middle = clock.instant();
        upsert("c1", "at-middle", 1);
        ChangeFeedReader fromNow = ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.now());
        clock.advanceSeconds(10);
        upsert("c1", "after", 1);

        assertThat(readAll(fromNow, 10)).extracting(ChangeEvent::id).containsExactly("after");
        assertThat(readAll(ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.pointInTime(middle)), 10)).extracting(ChangeEvent::id).containsExactly("at-middle", "after");
        assertThat(readAll(ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.pointInTime(middle.plusSeconds(3600))), 10)).isEmpty();
    }

    @Test
    void feedRangesCanBeReadSeparatelyAndTogetherTheyGiveEverything() {
        for (int index = 0; index < 40; index++) {
            upsert("customer-" + index, "order-" + index, 1);
        }
        List<ChangeEvent> union = new ArrayList<>();
        for (FeedRange range : ChangeFeedReader.feedRanges(store, "orders")) {
            List<ChangeEvent> events = readAll(ChangeFeedReader.open(store, range,
                    ChangeFeedMode.ALL_VERSIONS_AND_DELETES, StartFrom.beginning()), 5);
            assertThat(events).as("events of %s", range).isNotEmpty();
            union.addAll(events);
        }
        assertThat(union).extracting(ChangeEvent::id).doesNotHaveDuplicates().hasSize(40);
    }

    @Test
    void badStartsAreClearErrors() {
        assertThatThrownBy(() -> ChangeFeedReader.open(store, "missing", ChangeFeedMode.LATEST_VERSION,
                StartFrom.beginning()))
                .isInstanceOf(ChangeFeedException.class)
                .hasMessage("Cannot read the change feed of container missing: no such container");
        assertThatThrownBy(() -> ChangeFeedReader.open(store, "orders", ChangeFeedMode.LATEST_VERSION,
                StartFrom.continuation("not-a-token!")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot read continuation token 'not-a-token!': not a docmirror continuation token");
        store.createContainer(ContainerProperties.of("other", "/k"));
        String otherToken = ChangeFeedReader.open(store, "other", ChangeFeedMode.LATEST_VERSION, StartFrom.now())
                .continuation();
        assertThatThrownBy(() -> ChangeFeedReader.open(store, "orders", ChangeFeedMode.LATEST_VERSION,
                StartFrom.continuation(otherToken)))
                .isInstanceOf(ChangeFeedException.class)
                .hasMessage("Cannot start the change feed of orders from a continuation token of container other");
        assertThatThrownBy(() -> ChangeFeedReader.open(store, new FeedRange("orders", 9), ChangeFeedMode.LATEST_VERSION,
                StartFrom.now()))
                .hasMessage("Cannot read feed range orders[9]: container orders has feed ranges 0 to 3");
        assertThatThrownBy(() -> ChangeFeedMode.fromConfigValue("incremental"))
                .hasMessage("Unknown change feed mode 'incremental': expected latest-version or all-versions-and-deletes");
    }

    @Test
    void aPositionPastTheRetentionFailsNamingTheOldestPositionLeft() {
        store.close();
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withChangeLogRetention(-1, 2), clock, false);
        store.createContainer(ContainerProperties.of("log", "/k").withLogPartitions(1));
        String token = ChangeFeedReader.open(store, "log", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning()).continuation();
        for (int index = 1; index <= 5; index++) {
            store.upsertItem("log", "{\"id\":\"a\",\"k\":\"p\",\"v\":" + index + "}");
        }
        store.trimChangeLog(100);

        ChangeFeedReader stale = ChangeFeedReader.open(store, "log", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.continuation(token));
        assertThatThrownBy(() -> stale.readNext(10))
                .isInstanceOf(ChangeFeedException.class)
                .hasMessage("Cannot read feed range log[0] after LSN 0: the change log no longer holds that position "
                        + "(its retention has passed); the oldest available position is after LSN 3. Start again "
                        + "from the beginning, or backfill.");
        assertThat(readAll(ChangeFeedReader.open(store, "log", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning()), 10)).extracting(ChangeEvent::lsn).containsExactly(4L, 5L);
    }
}
