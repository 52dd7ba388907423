package io.docmirror.mirror.reconcile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.DocumentTimestamp;
import io.docmirror.mirror.reconcile.ReconcileReport.Difference;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 *
 * <p>Its memory does not grow with the container: what does (each side's keys and hashes, the mirror's rows sorted by
 * key) is in DuckDB databases on disk ({@link ReconcileScratch}), compared there ({@link ReconcileSpill}), and only
 * the differences come back.
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
    private final Path spillDirectory;

    /**
     * A reconciler of a mirror whose tables are in the embedded catalog of {@code mirrorDirectory}, working in
     * {@code java.io.tmpdir}.
     *
     * @param maxDifferences how many differences a report describes (all are counted)
     */
    public Reconciler(StoreClient store, Path mirrorDirectory, Clock clock, int maxDifferences) {
        this(store, mirrorDirectory, CatalogSettings.embedded(requireNonNull(mirrorDirectory,
                "mirrorDirectory is null")), clock, maxDifferences);
    }

    /**
     * A reconciler working in {@code java.io.tmpdir}.
     *
     * @param mirrorDirectory where readers take their leases ({@code DATA/mirror})
     * @param catalog the catalog that holds the mirror's tables
     * @param maxDifferences how many differences a report describes (all are counted)
     */
    public Reconciler(StoreClient store, Path mirrorDirectory, CatalogSettings catalog, Clock clock,
            int maxDifferences) {
        this(store, mirrorDirectory, catalog, clock, maxDifferences, Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * @param mirrorDirectory where readers take their leases ({@code DATA/mirror})
     * @param catalog the catalog that holds the mirror's tables
     * @param maxDifferences how many differences a report describes (all are counted)
     * @param spillDirectory where each reconcile keeps what grows with the container (its documents' keys and
     *     hashes, its rows sorted by key, the store's side), in a directory of its own that goes when it ends: about
     *     as much disk as the container's tables, and memory that does not grow with them
     */
    public Reconciler(StoreClient store, Path mirrorDirectory, CatalogSettings catalog, Clock clock,
            int maxDifferences, Path spillDirectory) {
        this.store = requireNonNull(store, "store is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.maxDifferences = maxDifferences;
        this.spillDirectory = requireNonNull(spillDirectory, "spillDirectory is null");
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
        try (ReconcileScratch scratch = ReconcileScratch.create(spillDirectory)) {
            return compare(container, null, scratch, 0, Map.of(), Map.of(), false, clock.instant().getEpochSecond());
        } catch (SQLException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot compare " + containerName + " with its store: " + e.getMessage(),
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
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The checkpoint of " + container.id() + " cannot be read", e);
        }
        Map<Integer, Long> historyFrom = new HashMap<>();
        try {
            if (summary.containsKey(MirrorSummary.HISTORY_FROM)) {
                CHECKPOINTS.readTree(summary.get(MirrorSummary.HISTORY_FROM)).fields().forEachRemaining(range ->
                        historyFrom.put(Integer.parseInt(range.getKey()), range.getValue().asLong()));
            }
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "Where the history of " + container.id() + " starts cannot be read", e);
        }
        try (ReaderLeases.Lease lease = new ReaderLeases(directory).take(batch);
                ReconcileScratch scratch = ReconcileScratch.create(spillDirectory);
                MirroredDocuments documents = new MirroredDocuments(tables, asOf, scratch)) {
            return compare(container, documents, scratch, batch, checkpoint.reachedPositions(), historyFrom,
                    !checkpoint.historyFrom().isEmpty(), asOf);
        } catch (SQLException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot read the mirror of " + container.id() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Compares the store with {@code documents} (null: the container has no mirror yet), which hold every change up
     * to {@code positions} per feed range, and a history from {@code historyFrom} on.
     *
     * @param loadedWithoutOperations whether the history before {@code historyFrom} came from a load that cannot tell
     *     a create from a replace (a Cosmos DB account's latest-version feed), so only the documents compare there
     */
    private ReconcileReport compare(ContainerProperties container, MirroredDocuments documents,
            ReconcileScratch scratch, long version, Map<Integer, Long> positions, Map<Integer, Long> historyFrom,
            boolean loadedWithoutOperations, long asOf) throws SQLException {
        long ttlCutoff = container.analyticalTtl() != null && container.analyticalTtl() > 0
                ? asOf - container.analyticalTtl() : Long.MIN_VALUE;
        try (ReconcileSpill spill = new ReconcileSpill(scratch)) {
            if (documents != null) {
                readMirror(container, documents, spill);
            }
            for (int range = 0; range < container.logPartitions(); range++) {
                long mirroredLsn = positions.getOrDefault(range, 0L);
                long logStartLsn = new StoreRange(container, range, mirroredLsn, ttlCutoff, spill).read();
                spill.addFeedRange(range, mirroredLsn, logStartLsn, historyFrom.getOrDefault(range, 0L));
            }
            spill.settle(ttlCutoff, container.defaultTtl() != null);
            Differences differences = new Differences(container, documents, positions);
            spill.forEachDifference(loadedWithoutOperations, differences::add);
            return new ReconcileReport(container.id(), version, spill.feedRanges(), differences.first,
                    differences.count);
        }
    }

    /** Adds the mirror's documents and history to {@code spill}, each in its feed range. */
    private static void readMirror(ContainerProperties container, MirroredDocuments mirrored, ReconcileSpill spill)
            throws SQLException {
        mirrored.forEach(document -> spill.addMirrorDocument(rangeOf(container, document.partitionKey()),
                new DocumentKey(document.partitionKey(), document.id()), versionHash(document.json(),
                        document.lsn())));
        mirrored.forEachHistoryEntry(entry -> spill.addMirrorChange(rangeOf(container, entry.partitionKey()),
                entry.lsn(), new DocumentKey(entry.partitionKey(), entry.id()), changeHash(entry.operation(),
                        entry.ttlExpired(), entry.document())));
    }

    /** The first differences found, described, and how many there are. */
    private final class Differences {
        private final ContainerProperties container;
        private final MirroredDocuments mirrored;
        private final Map<Integer, Long> positions;
        final List<Difference> first = new ArrayList<>();
        long count;

        Differences(ContainerProperties container, MirroredDocuments mirrored, Map<Integer, Long> positions) {
            this.container = container;
            this.mirrored = mirrored;
            this.positions = positions;
        }

        void add(ReconcileSpill.KeyDifference found) throws SQLException {
            count++;
            if (first.size() < maxDifferences) {
                first.add(new Difference(found.feedRange(), found.key().partitionKey(), found.key().id(),
                        found.change() ? changeDifference(found) : documentDifference(found)));
            }
        }

        private String documentDifference(ReconcileSpill.KeyDifference found) throws SQLException {
            if (!found.inMirror()) {
                return "in the store, missing from the mirror";
            }
            if (!found.inStore()) {
                return "in the mirror, not in the store";
            }
            return describe(found.key(), positions.getOrDefault(found.feedRange(), 0L));
        }

        private static String changeDifference(ReconcileSpill.KeyDifference found) {
            String change = "history: the change of LSN " + found.lsn();
            return !found.inMirror() ? change + " is missing"
                    : !found.inStore() ? change + " is not in the store's change log"
                    : change + " differs from the store's";
        }

        /** The first place where the store's document and the mirror's differ, in words. */
        private String describe(DocumentKey key, long mirroredLsn) throws SQLException {
            Optional<Item> inStore = store.findItem(container.id(),
                    PartitionKeyValue.parse(key.partitionKey()).toPartitionKey(), key.id());
            Optional<MirroredDocuments.Document> inMirror = mirrored == null ? Optional.empty()
                    : mirrored.find(key.partitionKey(), key.id());
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
    }

    /** One feed range of the store, added to the spill as of the mirror's position in it. */
    private final class StoreRange {
        private final ContainerProperties container;
        private final int range;
        private final long mirroredLsn;
        private final long ttlCutoff;
        private final ReconcileSpill spill;
        private long logStartLsn;

        StoreRange(ContainerProperties container, int range, long mirroredLsn, long ttlCutoff, ReconcileSpill spill) {
            this.container = container;
            this.range = range;
            this.mirroredLsn = mirroredLsn;
            this.ttlCutoff = ttlCutoff;
            this.spill = spill;
        }

        /** Adds the range's keys changed since, its change log and its documents; returns where its log starts. */
        long read() throws SQLException {
            addKeysChangedAfterMirroredLsn();
            foldChangeLog();
            addCurrentItems();
            return logStartLsn;
        }

        /** The keys the store changed after the mirror's position: their current state is not the one to compare. */
        private void addKeysChangedAfterMirroredLsn() throws SQLException {
            long after = mirroredLsn;
            while (true) {
                ChangeLogPage page;
                try {
                    page = store.readChangeLog(container.id(), range, after, PAGE);
                } catch (StoreException e) {
                    if (e.code() != StoreErrorCode.GONE) {
                        throw e;
                    }
                    throw new MirrorException(MirrorErrorCode.POSITION_LOST,
                            "Cannot reconcile feed range " + range + " of " + container.id()
                            + ": the store's change log no longer holds the changes after the mirror's LSN "
                            + mirroredLsn + ", so the mirror has lost its place: run `docmirror backfill`", e);
                }
                logStartLsn = page.logStartLsn();
                if (page.events().isEmpty()) {
                    return;
                }
                for (ChangeEvent event : page.events()) {
                    spill.addChangedKey(range, new DocumentKey(event.partitionKey().jsonText(), event.id()));
                    after = event.lsn();
                }
            }
        }

        /**
         * Reads the change log the store still holds up to the mirror's position: the store's side of the history,
         * and of each key it names, the state each change leaves (the last one's is what the mirror should show).
         */
        private void foldChangeLog() throws SQLException {
            long after = logStartLsn;
            while (after < mirroredLsn) {
                ChangeLogPage page = store.readChangeLog(container.id(), range, after, PAGE);
                if (page.events().isEmpty()) {
                    break;
                }
                for (ChangeEvent event : page.events()) {
                    if (event.lsn() > mirroredLsn) {
                        return;
                    }
                    after = event.lsn();
                    DocumentKey key = new DocumentKey(event.partitionKey().jsonText(), event.id());
                    byte[] document = event.documentJson().orElse(null);
                    long ts = DocumentTimestamp.of(event);
                    if (ts > ttlCutoff) {
                        spill.addStoreChange(range, event.lsn(), key, changeHash(event.operation().name(),
                                event.ttlExpired(), document == null ? null
                                        : new String(document, StandardCharsets.UTF_8)));
                    }
                    if (event.operation() != Operation.DELETE) {
                        spill.addLogVersion(range, event.lsn(), key, versionHash(document, event.lsn()), ts);
                    } else if (!event.ttlExpired()) {
                        // A user's delete removes the mirrored document; a TTL expiry leaves it.
                        spill.addLogDelete(range, event.lsn(), key, ts);
                    }
                }
            }
        }

        /** The store's current documents: which of them to compare as they are is settled with the log's. */
        private void addCurrentItems() throws SQLException {
            Optional<String> continuation = Optional.empty();
            do {
                ItemPage page = store.scanItems(container.id(), range, continuation, PAGE);
                for (Item item : page.items()) {
                    byte[] json = item.jsonBytes();
                    spill.addStoreDocument(range, new DocumentKey(PartitionKeyValue.of(item.partitionKey()).jsonText(),
                            item.id()), versionHash(json, item.lsn()), DocumentTimestamp.of(json, 0));
                }
                continuation = page.continuation();
            } while (continuation.isPresent());
        }
    }

    private static long versionHash(byte[] json, long lsn) {
        return CanonicalJson.hash(CanonicalJson.of(json, SYSTEM_PROPERTIES_NOT_IN_TEXT) + "@" + lsn);
    }

    private static long changeHash(String operation, boolean ttlExpired, String document) {
        return CanonicalJson.hash(operation + "|" + ttlExpired + "|"
                + (document == null ? "" : CanonicalJson.of(document, Set.of())));
    }

    private static int rangeOf(ContainerProperties container, String partitionKeyJson) {
        return container.logPartitionOf(PartitionKeyValue.parse(partitionKeyJson).toPartitionKey());
    }
}
