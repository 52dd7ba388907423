package io.docmirror.feed.processor;

import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.FeedRange;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.docmirror.feed.processor.ProcessorTesting.await;
import static io.docmirror.feed.processor.ProcessorTesting.fastOptions;
import static org.assertj.core.api.Assertions.assertThat;

class ChangeFeedProcessorTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    TestingClock storeClock = TestingClock.atEpochSecond(1_767_225_600);
    EmbeddedStore store;

    @BeforeEach
    void setUp() {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false), storeClock, false);
        store.createContainer(ContainerProperties.of("orders", "/customer"));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private void writeOrders(int from, int to) {
        for (int index = from; index < to; index++) {
            store.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customer\":\"c" + (index % 23) + "\"}");
        }
    }

    private static ChangeFeedHandler recordingInto(Set<String> handled) {
        return (context, events) -> {
            for (ChangeEvent event : events) {
                handled.add(ProcessorTesting.key(event));
            }
        };
    }

    private Set<String> eventsOf(FeedRange range) {
        Set<String> keys = new java.util.HashSet<>();
        ChangeFeedReader reader = ChangeFeedReader.open(store, range, ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning());
        ChangeFeedPage page;
        do {
            page = reader.readNext(1000);
            page.events().forEach(event -> keys.add(ProcessorTesting.key(event)));
        } while (!page.caughtUp());
        return keys;
    }

    @Test
    void twoWorkersBalanceTheFeedRangesAndHandleEveryChange() throws Exception {
        writeOrders(0, 200);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        try (ChangeFeedProcessor a = new ChangeFeedProcessor(store, "orders", recordingInto(handled),
                fastOptions("a"), Clock.systemUTC());
                ChangeFeedProcessor b = new ChangeFeedProcessor(store, "orders", recordingInto(handled),
                        fastOptions("b"), Clock.systemUTC())) {
            a.start();
            b.start();
            writeOrders(200, 300);

            Set<String> expected = ProcessorTesting.allEvents(store, "orders");
            await("every change is handled", WAIT, () -> handled.containsAll(expected));
            await("the feed ranges are balanced", WAIT,
                    () -> a.ownedFeedRanges().size() == 2 && b.ownedFeedRanges().size() == 2);
            assertThat(handled).hasSize(300);
        }
    }

    @Test
    void aFailingHandlerRetriesItsBatchWhileOtherFeedRangesGoOn() throws Exception {
        writeOrders(0, 100);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        AtomicInteger failuresLeft = new AtomicInteger(3);
        ChangeFeedHandler flaky = (context, events) -> {
            if (context.feedRange().logPartition() == 0 && failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("downstream unavailable");
            }
            recordingInto(handled).handle(context, events);
        };
        try (ChangeFeedProcessor processor = new ChangeFeedProcessor(store, "orders", flaky, fastOptions("a"),
                Clock.systemUTC())) {
            processor.start();
            Set<String> others = new java.util.HashSet<>();
            for (int partition = 1; partition < 4; partition++) {
                others.addAll(eventsOf(new FeedRange("orders", partition)));
            }
            await("the other feed ranges are handled", WAIT, () -> handled.containsAll(others));

            Set<String> expected = ProcessorTesting.allEvents(store, "orders");
            await("feed range 0 is handled after its retries", WAIT, () -> handled.containsAll(expected));
            assertThat(processor.failures()).isEqualTo(3);
        }
    }

    @Test
    void aStoppedWorkerHandsItsFeedRangesOverFromItsCheckpoints() throws Exception {
        writeOrders(0, 100);
        Set<String> handledByA = ConcurrentHashMap.newKeySet();
        Set<String> handledByB = ConcurrentHashMap.newKeySet();
        ChangeFeedProcessor a = new ChangeFeedProcessor(store, "orders", recordingInto(handledByA), fastOptions("a"),
                Clock.systemUTC());
        a.start();
        Set<String> first = ProcessorTesting.allEvents(store, "orders");
        await("worker a handles the first changes", WAIT, () -> handledByA.containsAll(first));
        a.stop();

        writeOrders(100, 150);
        try (ChangeFeedProcessor b = new ChangeFeedProcessor(store, "orders", recordingInto(handledByB),
                fastOptions("b"), Clock.systemUTC())) {
            b.start();
            Set<String> all = ProcessorTesting.allEvents(store, "orders");
            await("worker b handles the rest", WAIT, () -> handledByB.size() >= all.size() - first.size());
            await("worker b holds every feed range", WAIT, () -> b.ownedFeedRanges().size() == 4);
            assertThat(handledByB).as("b starts from a's checkpoints").doesNotContainAnyElementsOf(first)
                    .hasSize(50);
        }
    }

    @Test
    void theEstimatorTellsHowFarEachFeedRangeIsBehind() throws Exception {
        writeOrders(0, 40);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        try (ChangeFeedProcessor processor = new ChangeFeedProcessor(store, "orders", recordingInto(handled),
                fastOptions("a"), Clock.systemUTC())) {
            processor.start();
            await("all handled", WAIT, () -> handled.size() == 40);
            await("all checkpointed", WAIT, () -> ChangeFeedEstimator.estimate(store, "orders", "test",
                    ProcessorOptions.DEFAULT_LEASE_CONTAINER, storeClock).stream()
                    .allMatch(lag -> lag.eventsBehind() == 0));
        }
        writeOrders(40, 60);
        storeClock.advanceSeconds(30);

        List<ChangeFeedEstimator.Lag> lags = ChangeFeedEstimator.estimate(store, "orders", "test",
                ProcessorOptions.DEFAULT_LEASE_CONTAINER, storeClock);

        assertThat(lags).hasSize(4);
        assertThat(lags.stream().mapToLong(ChangeFeedEstimator.Lag::eventsBehind).sum()).isEqualTo(20);
        assertThat(lags).allSatisfy(lag -> {
            assertThat(lag.owner()).as("released by stop").isNull();
            assertThat(lag.timeBehind()).isEqualTo(lag.eventsBehind() > 0 ? Duration.ofSeconds(30) : Duration.ZERO);
        });
    }
}
