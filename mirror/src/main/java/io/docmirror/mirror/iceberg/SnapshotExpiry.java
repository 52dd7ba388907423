package io.docmirror.mirror.iceberg;

import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.MirrorConfig;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;

/**
 * Expires a container's old snapshots: in each table those older than {@code mirror.snapshots.keep-ms} beyond the
 * newest {@code mirror.snapshots.keep}, and never one that a reader's lease holds (the snapshot current at
 * the batch it reads). Iceberg deletes the files that only the expired snapshots needed.
 */
final class SnapshotExpiry {
    private SnapshotExpiry() {
    }

    /**
     * Expires what is due in {@code tables}, through {@code batch} (committed when any table had something to expire).
     *
     * @param held the oldest batch a reader's lease holds
     * @param workers the threads Iceberg plans and deletes with ({@link io.docmirror.layout.IcebergWorkers})
     */
    static void expire(CatalogBatch batch, List<TableIdentifier> tables, OptionalLong held, MirrorConfig config,
            ExecutorService workers) {
        // Iceberg stamps snapshots with the system clock, so their age is measured on it too.
        long cutoff = System.currentTimeMillis() - config.keepSnapshotsFor().toMillis();
        boolean any = false;
        for (TableIdentifier identifier : tables) {
            Table table = batch.table(identifier);
            long tableCutoff = held.isPresent() ? Math.min(cutoff, heldSince(table, held.getAsLong())) : cutoff;
            List<Snapshot> snapshots = new ArrayList<>();
            table.snapshots().forEach(snapshots::add);
            snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
            boolean expirable = snapshots.subList(0, Math.max(0, snapshots.size() - config.keepSnapshots()))
                    .stream().anyMatch(snapshot -> snapshot.timestampMillis() < tableCutoff);
            if (expirable) {
                table.expireSnapshots().planWith(workers).executeDeleteWith(workers)
                        .expireOlderThan(tableCutoff).retainLast(config.keepSnapshots())
                        .cleanExpiredFiles(true).commit();
                any = true;
            }
        }
        if (any) {
            batch.commit();
        }
    }

    /** When the snapshot of {@code table} current at batch {@code batch} was made; its first snapshot's if older. */
    private static long heldSince(Table table, long batch) {
        long since = Long.MAX_VALUE;
        long newestAtOrBefore = Long.MIN_VALUE;
        for (Snapshot snapshot : table.snapshots()) {
            long number = Long.parseLong(snapshot.summary().getOrDefault(MirrorSummary.BATCH, "0"));
            since = Math.min(since, snapshot.timestampMillis());
            if (number <= batch && snapshot.timestampMillis() > newestAtOrBefore) {
                newestAtOrBefore = snapshot.timestampMillis();
            }
        }
        return newestAtOrBefore == Long.MIN_VALUE ? since : newestAtOrBefore;
    }
}
