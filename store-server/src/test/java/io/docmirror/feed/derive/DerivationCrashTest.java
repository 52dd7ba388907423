package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.feed.processor.ProcessorOptions;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.docmirror.feed.derive.DerivationTesting.SOURCE;
import static io.docmirror.feed.derive.DerivationTesting.contents;
import static io.docmirror.feed.derive.DerivationTesting.order;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGKILLs a derivation runner process at random points while the source keeps changing, restarts it each time,
 * and checks that the targets end exactly where an uninterrupted run over the same history ends.
 */
@Tag("slow")
class DerivationCrashTest {
    private static final int TRIALS = 12;
    private static final List<String> TARGETS = List.of("Customers", "Orders", "Items");

    @TempDir
    Path dataDir;

    @Test
    void killedRunnersConvergeToTheUninterruptedState() throws Exception {
        SplittableRandom random = new SplittableRandom(20261123);
        int killedMidway = 0;
        try (EmbeddedStore store = openStore("crashed");
                EmbeddedStore reference = openStore("reference");
                StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0))) {
            // More work than the trials get through, so that every kill lands in the middle of it.
            int next = writeChanges(List.of(store, reference), 0, 1500);
            for (int trial = 0; trial < TRIALS; trial++) {
                next = writeChanges(List.of(store, reference), next, 60);
                long behindBefore = eventsBehind(store);
                Process worker = ChildProcesses.startJava(DerivationWorker.class.getName(), "started",
                        server.baseUri(), "worker-" + trial);
                // Once the worker has checkpointed its first batch (after the last one's leases lapse), kill it at a
                // random point of the next few hundred milliseconds: within a batch, between batches, mid-write.
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (eventsBehind(store) >= behindBefore && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                Thread.sleep(random.nextInt(400));
                ChildProcesses.sigkill(worker);
                long behindAfter = eventsBehind(store);
                if (behindAfter > 0 && behindAfter < behindBefore) {
                    killedMidway++;
                }
            }
            // The last worker's leases lapse; then this process finishes the feed as a batch job.
            Thread.sleep(DerivationWorker.LEASE.toMillis() + 200);
            finish(store);
            finish(reference);

            for (String target : TARGETS) {
                Map<String, JsonNode> expected = contents(reference, target);
                assertThat(expected).isNotEmpty();
                assertThat(contents(store, target)).as(target).isEqualTo(expected);
            }
        }
        assertThat(killedMidway).as("trials killed after some but not all of the work").isGreaterThan(TRIALS / 2);
    }

    private EmbeddedStore openStore(String name) {
        EmbeddedStore store = EmbeddedStore.open(dataDir.resolve(name), StoreConfig.defaults().withSyncWrites(false));
        store.createContainer(ContainerProperties.of(SOURCE, "/customerId"));
        return store;
    }

    /** The same creates, updates that drop line items, and deletes, into each store; returns the next order number. */
    private static int writeChanges(List<EmbeddedStore> stores, int from, int count) {
        for (EmbeddedStore store : stores) {
            for (int order = from; order < from + count; order++) {
                String customer = "customer-" + order % 13;
                store.createItem(SOURCE, order("order-" + order, customer, "WA", "2025-03-01", "A", "B", "C", "D"));
                if (order % 3 == 0) {
                    store.upsertItem(SOURCE, order("order-" + order, customer, "TX", "2025-03-02", "A"));
                }
                if (order % 7 == 0) {
                    store.deleteItem(SOURCE, PartitionKey.of(customer), "order-" + order);
                }
            }
        }
        return from + count;
    }

    private static long eventsBehind(EmbeddedStore store) {
        return ChangeFeedEstimator.estimate(store, SOURCE, DerivationTesting.scenario().processorName(),
                ProcessorOptions.DEFAULT_LEASE_CONTAINER, Clock.systemUTC()).stream()
                .mapToLong(ChangeFeedEstimator.Lag::eventsBehind).sum();
    }

    private static void finish(EmbeddedStore store) throws Exception {
        try (DerivationRunner runner = new DerivationRunner(store, List.of(DerivationTesting.scenario()),
                name -> DerivationWorker.options(name, "finisher"), Clock.systemUTC())) {
            runner.catchUp();
        }
    }
}
