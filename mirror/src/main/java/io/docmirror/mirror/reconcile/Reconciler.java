package io.docmirror.mirror.reconcile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.DocumentTimestamp;
import io.docmirror.mirror.reconcile.ReconcileReport.Difference;
import io.docmirror.mirror.reconcile.ReconcileReport.Tally;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * Compares a container's mirror with its store, value for value: per feed range, the current documents the store
 * held at the newest LSN the mirror holds against the documents the mirror serves (read through its views and
 * rebuilt into JSON), and the store's change log against the mirror's history for the span the log still holds.
 *
 * <p>It works beside a running daemon: one batch of the mirror is read, and the store's side is taken back to that
 * batch's LSN per feed range with the change log. Documents changed since then are compared as they were at that
 * LSN; one whose state then the log no longer holds is counted as not comparable, never as equal.
 *
 * <p>What counts as the same: the store's semantics as the mirror keeps them. A TTL expiry in the store leaves the
 * mirrored row (the analytical TTL decides how long it stays), and rows past the analytical TTL are left out on both
 * sides, counted from the same instant.
 */
public final class Reconciler {
    /** Compared through each version's LSN instead: the store adds it to the stored JSON, the mirror to its row. */
    private static final Set<String> SYSTEM_PROPERTIES_NOT_IN_TEXT = Set.of("_lsn");
    private static final int PAGE = 1000;

    private final StoreClient store;
    private final Path mirrorDirectory;
    private final CatalogSettings catalog;
    private static final ObjectMapper CHECKPOINTS = new ObjectMapper();

    private final Clock clock;
    private final int maxDifferences;

    /**
     * A reconciler of a mirror whose tables are in the embedded catalog of {@code mirrorDirectory}.
     *
     * @param maxDifferences how many differences a report describes (all are counted)
     */
    public Reconciler(StoreClient store, Path mirrorDirectory, Clock clock, int maxDifferences) {
        this(store, mirrorDirectory, CatalogSettings.embedded(requireNonNull(mirrorDirectory,
                "mirrorDirectory is null")), clock, maxDifferences);
    }

    /**
     * @param mirrorDirectory where readers take their leases ({@code DATA/mirror})
     * @param catalog the catalog that holds the mirror's tables
     * @param maxDifferences how many differences a report describes (all are counted)
     */
    public Reconciler(StoreClient store, Path mirrorDirectory, CatalogSettings catalog, Clock clock,
            int maxDifferences) {
        this.store = requireNonNull(store, "store is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.maxDifferences = maxDifferences;
    }

    /** Compares every mirrored container, by name. */
    public List<ReconcileReport> reconcileAll() {
        List<ReconcileReport> reports = new ArrayList<>();
        for (ContainerProperties container : store.listContainers()) {
            if (container.isMirrored()) {
                reports.add(reconcile(container.id()));
            }
        }
        return reports;
    }

    public ReconcileReport reconcile(String containerName) {
        ContainerProperties container = store.readContainer(containerName);
        Optional<ContainerSnapshot> tables;
        try (CatalogReader reader = CatalogReader.open(catalog)) {
            tables = ContainerSnapshot.read(reader, containerName);
        }
        if (tables.isPresent()) {
            return reconcile(container, tables.get(), MirrorLayout.containerDirectory(mirrorDirectory, containerName));
        }
        try {
            return compare(container, null, 0, Map.of(), Map.of(), false, clock.instant().getEpochSecond());
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot compare " + containerName + " with its store: " + e.getMessage(),
                    e);
        }
    }

    /** Compares a container with its mirror's newest batch, holding a lease on that batch while it reads. */
    private ReconcileReport reconcile(ContainerProperties container, ContainerSnapshot tables, Path directory) {
        Map<String, String> summary = tables.rootSnapshot().summary();
        long batch = Long.parseLong(summary.get(MirrorSummary.BATCH));
        long asOf = clock.instant().getEpochSecond();
        Checkpoint checkpoint;
        try {
            checkpoint = summary.containsKey(MirrorSummary.CHECKPOINT)
                    ? CHECKPOINTS.readValue(summary.get(MirrorSummary.CHECKPOINT), Checkpoint.class)
                    : Checkpoint.NONE;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The checkpoint of " + container.id() + " cannot be read", e);
        }
        Map<Integer, Long> historyFrom = new HashMap<>();
        try {
            if (summary.containsKey(MirrorSummary.HISTORY_FROM)) {
                CHECKPOINTS.readTree(summary.get(MirrorSummary.HISTORY_FROM)).fields().forEachRemaining(range ->
                        historyFrom.put(Integer.parseInt(range.getKey()), range.getValue().asLong()));
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Where the history of " + container.id() + " starts cannot be read", e);
        }
        try (ReaderLeases.Lease lease = new ReaderLeases(directory).take(batch);
                MirroredDocuments documents = new MirroredDocuments(tables, asOf)) {
            return compare(container, documents, batch, checkpoint.reachedPositions(), historyFrom,
                    !checkpoint.historyFrom().isEmpty(), asOf);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the mirror of " + container.id() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Compares the store with {@code documents} (null: the container has no mirror yet), which hold every change up
     * to {@code positions} per feed range, and a history from {@code historyFrom} on.
     *
     * @param loadedWithoutOperations whether the history before {@code historyFrom} came from a load that cannot tell
     *     a create from a replace (a Cosmos DB account's latest-version feed), so only the documents compare there
     */
    private ReconcileReport compare(ContainerProperties container, MirroredDocuments documents, long version,
            Map<Integer, Long> positions, Map<Integer, Long> historyFrom, boolean loadedWithoutOperations, long asOf)
            throws SQLException {
        long ttlCutoff = container.analyticalTtl() != null && container.analyticalTtl() > 0
                ? asOf - container.analyticalTtl() : Long.MIN_VALUE;
        Differences differences = new Differences();
        MirrorSide mirror = new MirrorSide(container.logPartitions());
        if (documents != null) {
            mirror.read(container, documents);
        }
        List<ReconcileReport.FeedRange> ranges = new ArrayList<>();
        for (int range = 0; range < container.logPartitions(); range++) {
            ranges.add(new RangeComparison(container, range, positions.getOrDefault(range, 0L),
                    historyFrom.getOrDefault(range, 0L), loadedWithoutOperations, ttlCutoff, mirror, documents, differences)
                    .compare());
        }
        return new ReconcileReport(container.id(), version, ranges, differences.first, differences.count);
    }

    /** The first differences found, and how many there are. */
    private final class Differences {
        final List<Difference> first = new ArrayList<>();
        long count;

        void add(Difference difference) {
            count++;
            if (first.size() < maxDifferences) {
                first.add(difference);
            }
        }

        boolean describeMore() {
            return first.size() < maxDifferences;
        }
    }

    /** A document version as one side holds it: the hash of its canonical JSON and LSN, and its {@code _ts}. */
    private record Version(long hash, long ts) {
    }

    /** The mirror's documents and history, per feed range, by key. */
    private static final class MirrorSide {
        final List<Map<String, Version>> documents = new ArrayList<>();
        final List<Map<String, Long>> history = new ArrayList<>();

        MirrorSide(int ranges) {
            for (int range = 0; range < ranges; range++) {
                documents.add(new HashMap<>());
                history.add(new HashMap<>());
            }
        }

        void read(ContainerProperties container, MirroredDocuments mirrored) throws SQLException {
            mirrored.forEach(document -> documents.get(rangeOf(container, document.partitionKey()))
                    .put(key(document.partitionKey(), document.id()), new Version(versionHash(document.json(),
                            document.lsn()), document.ts())));
            mirrored.forEachHistoryEntry(entry -> history.get(rangeOf(container, entry.partitionKey()))
                    .put(changeKey(entry.lsn(), entry.partitionKey(), entry.id()), changeHash(entry.operation(),
                            entry.ttlExpired(), entry.document())));
        }
    }

    /** One feed range of one container. */
    private final class RangeComparison {
        private final ContainerProperties container;
        private final int range;
        private final long mirroredLsn;
        private final long historyFrom;
        private final boolean loadedWithoutOperations;
        private final long ttlCutoff;
        private final MirrorSide mirror;
        private final MirroredDocuments mirrored;
        private final Differences differences;
        /** What the store held at {@link #mirroredLsn}, by key. */
        private final Map<String, Version> expected = new HashMap<>();
        private final Map<String, Long> storeChanges = new HashMap<>();
        private final Set<String> notComparable = new HashSet<>();
        private long logStartLsn;

        RangeComparison(ContainerProperties container, int range, long mirroredLsn, long historyFrom,
                boolean loadedWithoutOperations, long ttlCutoff,
                MirrorSide mirror, MirroredDocuments mirrored, Differences differences) {
            this.container = container;
            this.range = range;
            this.mirroredLsn = mirroredLsn;
            this.historyFrom = historyFrom;
            this.loadedWithoutOperations = loadedWithoutOperations;
            this.ttlCutoff = ttlCutoff;
            this.mirror = mirror;
            this.mirrored = mirrored;
            this.differences = differences;
        }

        ReconcileReport.FeedRange compare() throws SQLException {
            Set<String> changedSince = keysChangedAfterMirroredLsn();
            Map<String, Version> asOfLog = foldChangeLog();
            for (String key : changedSince) {
                Version version = asOfLog.get(key);
                if (version != null) {
                    expected.put(key, version);
                } else if (logStartLsn > 0 && !asOfLog.containsKey(key)) {
                    notComparable.add(key);
                }
            }
            readCurrentItems(changedSince, asOfLog);
            expected.values().removeIf(version -> version.ts() <= ttlCutoff);

            Map<String, Version> mirrorDocuments = mirror.documents.get(range);
            compareDocuments(mirrorDocuments);
            Map<String, Long> mirrorChanges = mirrorChangesInLogSpan();
            compareHistory(mirrorChanges);
            return new ReconcileReport.FeedRange(range, mirroredLsn, tally(expected), tally(mirrorDocuments),
                    logStartLsn, tallyOf(storeChanges), tallyOf(mirrorChanges), notComparable.size());
        }

        /** The keys the store changed after the mirror's position: their current state is not the one to compare. */
        private Set<String> keysChangedAfterMirroredLsn() {
            Set<String> keys = new HashSet<>();
            long after = mirroredLsn;
            while (true) {
                ChangeLogPage page;
                try {
                    page = store.readChangeLog(container.id(), range, after, PAGE);
                } catch (StoreException e) {
                    if (e.code() != StoreErrorCode.GONE) {
                        throw e;
                    }
                    throw new IllegalStateException("Cannot reconcile feed range " + range + " of " + container.id()
                            + ": the store's change log no longer holds the changes after the mirror's LSN "
                            + mirroredLsn + ", so the mirror has lost its place: run `docmirror backfill`", e);
                }
                logStartLsn = page.logStartLsn();
                if (page.events().isEmpty()) {
                    return keys;
                }
                for (ChangeEvent event : page.events()) {
                    keys.add(key(event.partitionKey().toString(), event.id()));
                    after = event.lsn();
                }
            }
        }

        /**
         * Reads the change log the store still holds up to the mirror's position: the store's side of the history,
         * and of each key it names, the state the mirror should show at that position ({@code null}: deleted).
         */
        private Map<String, Version> foldChangeLog() {
            Map<String, Version> states = new HashMap<>();
            long after = logStartLsn;
            while (after < mirroredLsn) {
                ChangeLogPage page = store.readChangeLog(container.id(), range, after, PAGE);
                if (page.events().isEmpty()) {
                    break;
                }
                for (ChangeEvent event : page.events()) {
                    if (event.lsn() > mirroredLsn) {
                        return states;
                    }
                    after = event.lsn();
                    String key = key(event.partitionKey().toString(), event.id());
                    byte[] document = event.documentJson().orElse(null);
                    long ts = DocumentTimestamp.of(event);
                    if (ts > ttlCutoff) {
                        storeChanges.put(changeKey(event.lsn(), event.partitionKey().toString(), event.id()),
                                changeHash(event.operation().name(), event.ttlExpired(),
                                        document == null ? null : new String(document, StandardCharsets.UTF_8)));
                    }
                    if (event.operation() != Operation.DELETE) {
                        states.put(key, new Version(versionHash(document, event.lsn()), ts));
                    } else if (!event.ttlExpired()) {
                        // A user's delete removes the mirrored document; a TTL expiry leaves it.
                        states.put(key, null);
                    }
                }
            }
            return states;
        }

        /**
         * The store's current documents, each as of the mirror's position: one the store changed since is taken
         * from the change log instead, and one that expired in the store (which the mirror keeps) from its last
         * version in the log, when the log still holds it.
         */
        private void readCurrentItems(Set<String> changedSince, Map<String, Version> asOfLog) {
            Set<String> present = new HashSet<>();
            Optional<String> continuation = Optional.empty();
            do {
                ItemPage page = store.scanItems(container.id(), range, continuation, PAGE);
                for (Item item : page.items()) {
                    String key = key(item.partitionKey().toJson().toString(), item.id());
                    present.add(key);
                    if (!changedSince.contains(key)) {
                        byte[] json = item.jsonBytes();
                        expected.put(key, new Version(versionHash(json, item.lsn()), DocumentTimestamp.of(json, 0)));
                    }
                }
                continuation = page.continuation();
            } while (continuation.isPresent());
            // Documents that expired in the store, whose rows the mirror keeps: their last version in the log.
            asOfLog.forEach((key, lastVersion) -> {
                if (lastVersion != null && !present.contains(key) && !changedSince.contains(key)) {
                    expected.put(key, lastVersion);
                }
            });
            // A mirrored document the store no longer has, and whose end the log does not hold: it may have expired
            // in the store before the oldest change the log still holds.
            for (String key : mirror.documents.get(range).keySet()) {
                if (!present.contains(key) && !changedSince.contains(key) && !asOfLog.containsKey(key)
                        && container.defaultTtl() != null && logStartLsn > 0) {
                    notComparable.add(key);
                }
            }
        }

        private void compareDocuments(Map<String, Version> mirrorDocuments) throws SQLException {
            Set<String> keys = new HashSet<>(expected.keySet());
            keys.addAll(mirrorDocuments.keySet());
            for (String key : new TreeSet<>(keys)) {
                if (notComparable.contains(key)) {
                    continue;
                }
                Version inStore = expected.get(key);
                Version inMirror = mirrorDocuments.get(key);
                if (inStore != null && inMirror != null && inStore.hash() == inMirror.hash()) {
                    continue;
                }
                String[] parts = key.split("\u0000", 2);
                String what;
                if (inMirror == null) {
                    what = "in the store, missing from the mirror";
                } else if (inStore == null) {
                    what = "in the mirror, not in the store";
                } else {
                    what = differences.describeMore() ? describe(parts[0], parts[1]) : "the documents differ";
                }
                differences.add(new Difference(range, parts[0], parts[1], what));
            }
        }

        /** The first place where the store's document and the mirror's differ, in words. */
        private String describe(String partitionKey, String id) throws SQLException {
            Optional<Item> inStore = store.findItem(container.id(),
                    PartitionKey.fromToJson(readTree(partitionKey)), id);
            Optional<MirroredDocuments.Document> inMirror = mirrored == null ? Optional.empty()
                    : mirrored.find(partitionKey, id);
            if (inStore.isEmpty() || inMirror.isEmpty() || inStore.get().lsn() > mirroredLsn) {
                return "the documents differ (the store's version at the mirror's LSN is only in its change log)";
            }
            if (inStore.get().lsn() != inMirror.get().lsn()) {
                return "the store has the version of LSN " + inStore.get().lsn() + ", the mirror that of LSN "
                        + inMirror.get().lsn();
            }
            return DocumentDifference.first(CanonicalJson.of(inStore.get().jsonBytes(), SYSTEM_PROPERTIES_NOT_IN_TEXT),
                    CanonicalJson.of(inMirror.get().json(), SYSTEM_PROPERTIES_NOT_IN_TEXT));
        }

        /** The mirror's history entries of the span the change log holds: after its start, up to the position. */
        private Map<String, Long> mirrorChangesInLogSpan() {
            Map<String, Long> changes = new HashMap<>();
            mirror.history.get(range).forEach((key, hash) -> {
                long lsn = Long.parseLong(key.substring(0, key.indexOf('\u0000')));
                if (lsn > logStartLsn && lsn <= mirroredLsn) {
                    changes.put(key, hash);
                }
            });
            return changes;
        }

        private void compareHistory(Map<String, Long> mirrorChanges) {
            Map<String, Long> keys = new TreeMap<>(storeChanges);
            mirrorChanges.forEach(keys::putIfAbsent);
            for (String key : keys.keySet()) {
                Long inStore = storeChanges.get(key);
                Long inMirror = mirrorChanges.get(key);
                String[] parts = key.split("\u0000", 3);
                long lsn = Long.parseLong(parts[0]);
                if (lsn <= historyFrom && (inMirror == null || loadedWithoutOperations)) {
                    // Before a backfill, whose history holds each document's version as of its snapshot; loaded
                    // from a Cosmos DB account's latest-version feed, not even whether the version was a create
                    // or a replace (the documents themselves are compared above).
                    continue;
                }
                if (inStore != null && inStore.equals(inMirror)) {
                    continue;
                }
                String what = inMirror == null ? "history: the change of LSN " + lsn + " is missing"
                        : inStore == null ? "history: the change of LSN " + lsn + " is not in the store's change log"
                        : "history: the change of LSN " + lsn + " differs from the store's";
                differences.add(new Difference(range, parts[1], parts[2], what));
            }
        }

    }

    private static long versionHash(byte[] json, long lsn) {
        return CanonicalJson.hash(CanonicalJson.of(json, SYSTEM_PROPERTIES_NOT_IN_TEXT) + "@" + lsn);
    }

    private static long changeHash(String operation, boolean ttlExpired, String document) {
        return CanonicalJson.hash(operation + "|" + ttlExpired + "|"
                + (document == null ? "" : CanonicalJson.of(document, Set.of())));
    }

    private static Tally tally(Map<String, Version> versions) {
        long checksum = 0;
        for (Version version : versions.values()) {
            checksum += version.hash();
        }
        return new Tally(versions.size(), checksum);
    }

    private static Tally tallyOf(Map<String, Long> hashes) {
        long checksum = 0;
        for (long hash : hashes.values()) {
            checksum += hash;
        }
        return new Tally(hashes.size(), checksum);
    }

    private static int rangeOf(ContainerProperties container, String partitionKeyJson) {
        return container.logPartitionOf(PartitionKey.fromToJson(readTree(partitionKeyJson)));
    }

    private static JsonNode readTree(String json) {
        try {
            return StoreJson.mapper().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read partition key " + json, e);
        }
    }

    private static String key(String partitionKeyJson, String id) {
        return partitionKeyJson + '\u0000' + id;
    }

    /** Sorts by LSN first (zero-padded), so differences are reported in the order the changes happened. */
    private static String changeKey(long lsn, String partitionKeyJson, String id) {
        return String.format("%019d", lsn) + '\u0000' + partitionKeyJson + '\u0000' + id;
    }
}
