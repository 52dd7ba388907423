package io.docmirror.feed.processor;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.docmirror.feed.processor.ProcessorTesting.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two worker processes share a container's feed; one is killed with SIGKILL mid-stream while the store keeps being
 * written. The survivor takes the dead worker's leases once they expire and goes on from its checkpoints: every
 * change is handled at least once, none is skipped, and the survivor hands again only changes that the dead worker
 * had not checkpointed.
 *
 * <p>Every wait is for a state the processors reach whatever the schedule. Worker a starts alone, so it takes every
 * lease and checkpoints the first changes; b joins and the leases are balanced while nothing is written. (A worker
 * whose lease is taken goes on with that feed range until its next renewal is refused: with changes flowing, which
 * worker handles which of them would be a race.)
 */
@Tag("slow")
class ProcessorFailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String CONTAINER = "orders";
    /** Two feed ranges for each worker; the 31 customers of {@link #write} put changes in all four. */
    private static final int FEED_RANGES = 4;

    @TempDir
    Path dataDir;

    @Test
    void theSurvivorTakesOverAfterASigkillAndNothingIsSkipped() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(dataDir.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false));
                StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0))) {
            store.createContainer(ContainerProperties.of(CONTAINER, "/customer").withLogPartitions(FEED_RANGES));
            LeaseStore leases = new LeaseStore(store, ProcessorOptions.DEFAULT_LEASE_CONTAINER, CONTAINER, "test");
            FailoverReport report = new FailoverReport(store, CONTAINER, leases);
            List<WorkerProcess> workers = new ArrayList<>();
            try {
                failOver(store, server.baseUri(), leases, report, workers);
            } catch (AssertionError | Exception failure) {
                throw report.failure(failure);
            } finally {
                for (WorkerProcess worker : workers) {
                    worker.close();
                }
            }
        }
    }

    private void failOver(EmbeddedStore store, String storeUri, LeaseStore leases, FailoverReport report,
            List<WorkerProcess> workers) throws Exception {
        WorkerProcess a = start(storeUri, "a", report, workers);
        await("a holds every lease", WAIT, () -> leasesByOwner(store).equals(Map.of("a", (long) FEED_RANGES)));
        report.step("writing changes 0-199");
        write(store, 0, 200);
        await("a has checkpointed every change", WAIT, () -> caughtUp(store, "a"));
        WorkerProcess b = start(storeUri, "b", report, workers);
        await("a and b hold two leases each", WAIT, () -> leasesByOwner(store).equals(Map.of("a", 2L, "b", 2L)));

        List<Lease> beforeKill = leases.list();
        report.step("leases before the kill:" + FailoverReport.describe(beforeKill, System.currentTimeMillis()));
        report.step("writing changes 200-299, then killing a");
        write(store, 200, 300);
        a.sigkill();
        int handledByBBeforeKill = b.handled().size();
        List<Lease> afterKill = leases.list();
        report.step("killed a; b had handled " + handledByBBeforeKill + " changes; leases:"
                + FailoverReport.describe(afterKill, System.currentTimeMillis()));
        // a's last checkpoints, for the feed ranges b has not taken yet (it takes them once they expire); for the
        // others, those before the kill are a lower bound.
        Map<Integer, Long> checkpointsOfA = checkpointsOf("a", beforeKill);
        checkpointsOfA.putAll(checkpointsOf("a", afterKill));
        report.step("writing changes 300-499");
        write(store, 300, 500);

        LoggedChanges logged = LoggedChanges.read(store, CONTAINER);
        await("every change is handled by one worker or the other", WAIT, () -> {
            Set<String> handled = new HashSet<>(a.handled());
            handled.addAll(b.handled());
            return handled.containsAll(logged.keys());
        });
        await("b holds every lease and has checkpointed every change", WAIT, () -> caughtUp(store, "b"));
        report.step("b has taken over");

        assertThat(logged.size()).isEqualTo(500);
        assertThat(checkpointsOfA).as("checkpoints of the feed ranges a held when it was killed").isNotEmpty();
        List<String> handledByB = b.handled();
        List<String> handledAgain = handledByB.subList(handledByBBeforeKill, handledByB.size()).stream()
                .filter(key -> logged.find(key).filter(change -> change.lsn()
                        <= checkpointsOfA.getOrDefault(change.logPartition(), 0L)).isPresent())
                .toList();
        assertThat(handledAgain).as("changes b handled after the kill although a had checkpointed them").isEmpty();
    }

    private WorkerProcess start(String storeUri, String workerId, FailoverReport report,
            List<WorkerProcess> workers) throws Exception {
        report.step("starting worker " + workerId);
        WorkerProcess worker = WorkerProcess.start(storeUri, workerId, dataDir);
        workers.add(worker);
        report.watch(worker);
        report.step("worker " + workerId + " started");
        return worker;
    }

    /** How many unexpired leases each worker holds ("null": free ones). */
    private static Map<String, Long> leasesByOwner(EmbeddedStore store) {
        return lags(store).stream().collect(Collectors.groupingBy(lag -> String.valueOf(lag.owner()),
                Collectors.counting()));
    }

    /** Whether the worker holds every lease and has checkpointed every change. */
    private static boolean caughtUp(EmbeddedStore store, String workerId) {
        return lags(store).stream().allMatch(lag -> workerId.equals(lag.owner()) && lag.eventsBehind() == 0);
    }

    private static List<ChangeFeedEstimator.Lag> lags(EmbeddedStore store) {
        return ChangeFeedEstimator.estimate(store, CONTAINER, "test", ProcessorOptions.DEFAULT_LEASE_CONTAINER,
                Clock.systemUTC());
    }

    /** The checkpoint LSN of each feed range whose lease the worker holds (expired or not). */
    private static Map<Integer, Long> checkpointsOf(String workerId, List<Lease> leases) {
        Map<Integer, Long> checkpoints = new HashMap<>();
        for (Lease lease : leases) {
            if (workerId.equals(lease.owner())) {
                checkpoints.put(lease.logPartition(), ProcessorTesting.checkpointLsn(lease).orElse(0));
            }
        }
        return checkpoints;
    }

    private static void write(EmbeddedStore store, int from, int to) {
        for (int index = from; index < to; index++) {
            store.upsertItem(CONTAINER, "{\"id\":\"o" + index + "\",\"customer\":\"c" + (index % 31) + "\"}");
        }
    }
}
