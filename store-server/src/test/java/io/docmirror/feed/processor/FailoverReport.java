package io.docmirror.feed.processor;

import io.docmirror.store.StoreClient;

import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What the failover test saw, for its failure message: the test's steps with their times (the workers' logs use the
 * same clock and format), which worker handled which changes, the leases, and the workers' own output.
 */
final class FailoverReport {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    private static final int MAX_KEYS_SHOWN = 20;

    private final StoreClient store;
    private final String container;
    private final LeaseStore leases;
    private final List<String> steps = new ArrayList<>();
    private final List<WorkerProcess> workers = new ArrayList<>();

    FailoverReport(StoreClient store, String container, LeaseStore leases) {
        this.store = store;
        this.container = container;
        this.leases = leases;
    }

    /** Notes a step of the test, with the time. */
    void step(String what) {
        steps.add(TIME.format(LocalTime.now()) + " " + what);
    }

    /** Includes this worker in the report. */
    void watch(WorkerProcess worker) {
        workers.add(worker);
    }

    /** The failure, with everything the test saw in its message. */
    AssertionError failure(Throwable cause) {
        String report;
        try {
            report = render();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            report = "(no report: " + e + ")";
        }
        return new AssertionError(cause.getMessage() + "\n" + report, cause);
    }

    /** The leases, one a line: owner, expiry and checkpoint of each feed range. */
    static String describe(List<Lease> leases, long nowMillis) {
        StringBuilder text = new StringBuilder();
        for (Lease lease : leases) {
            OptionalLong checkpoint = ProcessorTesting.checkpointLsn(lease);
            text.append("\n    ").append(lease.container()).append('[').append(lease.logPartition()).append("]: ")
                    .append(lease.owner() == null ? "released" : "owner " + lease.owner() + ", "
                            + (lease.isFree(nowMillis) ? "expired " + (nowMillis - lease.expiresAtMillis()) + " ms ago"
                            : "expires in " + (lease.expiresAtMillis() - nowMillis) + " ms"))
                    .append(", checkpoint ").append(checkpoint.isPresent() ? "LSN " + checkpoint.getAsLong() : "none");
        }
        return text.toString();
    }

    private String render() {
        LoggedChanges logged = LoggedChanges.read(store, container);
        StringBuilder text = new StringBuilder("\n===== What the failover test saw =====\nSteps:");
        steps.forEach(step -> text.append("\n  ").append(step));
        Map<Integer, Long> perRange = logged.keys().stream().map(key -> logged.find(key).orElseThrow())
                .collect(Collectors.groupingBy(LoggedChanges.Change::logPartition, TreeMap::new,
                        Collectors.counting()));
        text.append("\nChanges in the log: ").append(logged.size()).append(", per feed range ").append(perRange);

        Map<String, List<String>> handlersByKey = new TreeMap<>();
        for (WorkerProcess worker : workers) {
            List<String> handled = worker.handled();
            handled.forEach(key -> handlersByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(worker.workerId()));
            text.append("\nWorker ").append(worker.workerId()).append(" handled ").append(handled.size())
                    .append(" changes; LSNs per feed range, in the order handled:")
                    .append(lsnRuns(handled, logged));
        }
        Set<String> missing = new TreeSet<>(logged.keys());
        missing.removeAll(handlersByKey.keySet());
        text.append("\nHandled by no worker: ").append(missing.size()).append(' ').append(first(missing));
        List<String> repeated = handlersByKey.entrySet().stream().filter(entry -> entry.getValue().size() > 1)
                .map(entry -> entry.getKey() + " by " + entry.getValue()).toList();
        text.append("\nHandled more than once: ").append(repeated.size()).append(' ').append(first(repeated));

        long now = System.currentTimeMillis();
        text.append("\nLeases at ").append(TIME.format(Instant.ofEpochMilli(now).atZone(ZoneId.systemDefault())))
                .append(':').append(describe(leases.list(), now));
        for (WorkerProcess worker : workers) {
            text.append("\n===== Output of worker ").append(worker.workerId()).append(" (stdout and stderr) =====\n")
                    .append(worker.log());
        }
        return text.toString();
    }

    /** Per feed range, the LSNs the worker handled as runs of consecutive LSNs: "1-40, 35-80" shows a redelivery. */
    private static String lsnRuns(List<String> handled, LoggedChanges logged) {
        Map<Integer, List<long[]>> runs = new TreeMap<>();
        List<String> unknown = new ArrayList<>();
        for (String key : handled) {
            Optional<LoggedChanges.Change> change = logged.find(key);
            if (change.isEmpty()) {
                unknown.add(key);
                continue;
            }
            List<long[]> rangeRuns = runs.computeIfAbsent(change.get().logPartition(), range -> new ArrayList<>());
            long lsn = change.get().lsn();
            long[] last = rangeRuns.isEmpty() ? null : rangeRuns.get(rangeRuns.size() - 1);
            if (last != null && last[1] + 1 == lsn) {
                last[1] = lsn;
            } else {
                rangeRuns.add(new long[] {lsn, lsn});
            }
        }
        StringBuilder text = new StringBuilder();
        runs.forEach((range, rangeRuns) -> text.append("\n    [").append(range).append("]: ").append(rangeRuns
                .stream().map(run -> run[0] == run[1] ? "" + run[0] : run[0] + "-" + run[1])
                .collect(Collectors.joining(", "))));
        if (!unknown.isEmpty()) {
            text.append("\n    not in the change log: ").append(unknown.size()).append(' ').append(first(unknown));
        }
        return text.toString();
    }

    private static String first(Collection<String> keys) {
        return keys.stream().limit(MAX_KEYS_SHOWN).toList() + (keys.size() > MAX_KEYS_SHOWN ? " ..." : "");
    }
}
