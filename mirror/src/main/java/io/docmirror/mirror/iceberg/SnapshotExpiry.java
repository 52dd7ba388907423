package io.docmirror.mirror.iceberg;

import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.MirrorConfig;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;

/**
 * Expires a container's old snapshots: in each table those older than {@code mirror.snapshots.keep-ms} beyond the
 * newest {@code mirror.snapshots.keep}, and never one that a reader's lease holds (the snapshot current at
 * the batch it reads). Iceberg deletes the files that only the expired snapshots needed, except a Puffin file that
 * deletion vectors of a kept snapshot still point into: one commit writes the vectors of several data files into one
 * Puffin file, and when a later commit replaces one of them, Iceberg (1.12) deletes the whole file with the snapshot
 * that dropped that one vector (apache/iceberg#17456), taking the others' rows back to life or failing every read.
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
        // Deleted only once the batch has moved the tables' pointers: a crash before that leaves the tables as they
        // were, every file they name still there (the files left over are orphans, removed later).
        Queue<Unneeded> unneeded = new ConcurrentLinkedQueue<>();
        for (TableIdentifier identifier : tables) {
            Table table = batch.table(identifier);
            long tableCutoff = held.isPresent() ? Math.min(cutoff, heldSince(table, held.getAsLong())) : cutoff;
            List<Snapshot> snapshots = new ArrayList<>();
            table.snapshots().forEach(snapshots::add);
            snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
            boolean expirable = snapshots.subList(0, Math.max(0, snapshots.size() - config.keepSnapshots()))
                    .stream().anyMatch(snapshot -> snapshot.timestampMillis() < tableCutoff);
            if (expirable) {
                VectorFilesInUse inUse = new VectorFilesInUse(table, kept(snapshots, tableCutoff,
                        config.keepSnapshots()));
                FileIO io = table.io();
                table.expireSnapshots().planWith(workers).executeDeleteWith(workers)
                        .expireOlderThan(tableCutoff).retainLast(config.keepSnapshots())
                        .deleteWith(location -> {
                            if (!inUse.contains(location)) {
                                unneeded.add(new Unneeded(io, location));
                            }
                        })
                        .cleanExpiredFiles(true).commit();
                any = true;
            }
        }
        if (any) {
            batch.commit();
            for (Unneeded file : unneeded) {
                file.io().deleteFile(file.location());
            }
        }
    }

    /** A file only expired snapshots needed, and the FileIO of its table. */
    private record Unneeded(FileIO io, String location) {
    }

    /**
     * The snapshots an expiry with this cutoff keeps, or more: those made at or after it, and the newest {@code keep}
     * ({@code snapshots} in sequence order).
     */
    private static List<Snapshot> kept(List<Snapshot> snapshots, long cutoff, int keep) {
        List<Snapshot> kept = new ArrayList<>();
        for (int index = 0; index < snapshots.size(); index++) {
            Snapshot snapshot = snapshots.get(index);
            if (snapshot.timestampMillis() >= cutoff || index >= snapshots.size() - keep) {
                kept.add(snapshot);
            }
        }
        return kept;
    }

    /**
     * The Puffin files that the live deletion vectors of the kept snapshots are in. Their delete manifests are read
     * only when the expiry would delete a Puffin file, which most expiries do not, and then once; Iceberg deletes on
     * several threads.
     */
    private static final class VectorFilesInUse {
        private final Table table;
        private final List<Snapshot> kept;
        private Set<String> files;

        VectorFilesInUse(Table table, List<Snapshot> kept) {
            this.table = table;
            this.kept = kept;
        }

        synchronized boolean contains(String location) {
            if (FileFormat.fromFileName(location) != FileFormat.PUFFIN) {
                return false;
            }
            if (files == null) {
                files = read();
            }
            return files.contains(location);
        }

        private Set<String> read() {
            Set<String> found = new HashSet<>();
            Set<String> manifestsRead = new HashSet<>();
            for (Snapshot snapshot : kept) {
                for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
                    if (!manifestsRead.add(manifest.path())) {
                        continue;
                    }
                    try (ManifestReader<DeleteFile> deletes = ManifestFiles.readDeleteManifest(manifest, table.io(),
                            table.specs())) {
                        for (DeleteFile delete : deletes) {
                            if (delete.format() == FileFormat.PUFFIN) {
                                found.add(delete.location());
                            }
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException("Cannot read delete manifest " + manifest.path() + " of "
                                + table.name(), e);
                    }
                }
            }
            return found;
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
