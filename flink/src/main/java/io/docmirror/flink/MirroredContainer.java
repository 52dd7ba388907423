package io.docmirror.flink;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.iceberg.ShardedBatch;
import io.docmirror.mirror.iceberg.ShardedBatch.CommittedTarget;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * The container the job mirrors and where its tables are: what every operator of the job opens (the committer its
 * tables, the writers the catalog, read-only). The mirror's and flattener's settings are their defaults.
 *
 * @param mirrorDirectory the mirror's directory (its catalog and the container's directory)
 * @param container the container's name
 * @param run the job's run: set at the job's first submission, kept in its state across restarts and rescaling, and
 *     carried in each commit's summary with the checkpoint id (a new run's checkpoint ids start again at 1)
 */
record MirroredContainer(String mirrorDirectory, String container, Map<String, String> options, String run)
        implements Serializable {
    /** The summary entry naming the run a commit of the job belongs to. */
    static final String RUN = "docmirror.flink.run";
    /** The summary entry naming the Flink checkpoint a commit of the job committed. */
    static final String CHECKPOINT_ID = "docmirror.flink.checkpoint-id";
    private static final String MIRROR_PREFIX = "mirror.";

    MirroredContainer {
        requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        requireNonNull(container, "container is null");
        requireNonNull(run, "run is null");
        options = Map.copyOf(options);
    }

    /**
     * The container mirrored with {@code options}, checked.
     *
     * @throws IllegalArgumentException naming the option, when one is not a mirror.* or flatten.* option or its
     *     value is invalid
     */
    static MirroredContainer of(String mirrorDirectory, String container, Map<String, String> options, String run) {
        MirroredContainer mirrored = new MirroredContainer(mirrorDirectory, container, options, run);
        options.keySet().forEach(key -> {
            if (!key.startsWith(MIRROR_PREFIX) && !key.startsWith(FlattenerConfig.PREFIX)) {
                // Not the value: another tool's option may hold a secret.
                throw new IllegalArgumentException(key + ": the job takes " + MIRROR_PREFIX + "* and "
                        + FlattenerConfig.PREFIX + "* options only (Flink's own are the cluster's)");
            }
        });
        mirrored.mirrorConfig();
        mirrored.flattenerConfig();
        return mirrored;
    }

    /** This container with the run an operator's state restored, if it holds one (a job restored, not started). */
    MirroredContainer restored(Iterable<String> runs) {
        MirroredContainer restored = this;
        for (String run : runs) {
            restored = new MirroredContainer(mirrorDirectory, container, options, run);
        }
        return restored;
    }

    FlattenerConfig flattenerConfig() {
        return FlattenerConfig.fromProperties(container, optionsStartingWith(FlattenerConfig.PREFIX));
    }

    private MirrorConfig mirrorConfig() {
        return MirrorConfig.fromProperties(optionsStartingWith(MIRROR_PREFIX));
    }

    /** {@code mirror.compaction.files}: how many of a writer's files of one size tier it compacts; 0: none. */
    int compactionFiles() {
        return mirrorConfig().compactionFiles();
    }

    private Map<String, String> optionsStartingWith(String prefix) {
        Map<String, String> chosen = new TreeMap<>();
        options.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                chosen.put(key, value);
            }
        });
        return chosen;
    }

    /** The tables, for the committer: it takes the container's writer lock. */
    ContainerTables openTables() {
        return ContainerTables.openForShardedStream(Path.of(mirrorDirectory), container, flattenerConfig(),
                mirrorConfig());
    }

    /** The catalog, for reading the committed tables without the lock. */
    CatalogConnection openCatalog() {
        return MirrorCatalog.open(mirrorConfig().catalog().settings(Path.of(mirrorDirectory)));
    }

    /** What the catalog last committed; the writers' files named by {@code checkpoint}. */
    CommittedTarget committed(CatalogConnection catalog, long checkpoint) {
        return ShardedBatch.committedTarget(catalog.catalog(), container, flattenerConfig(), checkpoint,
                mirrorConfig().parquet().fileRows());
    }

    /**
     * The checkpoint of this run the catalog's last commit committed, read from the root table alone (a writer polls
     * it); empty when there is none, or it is not this run's.
     */
    OptionalLong committedCheckpoint(CatalogConnection catalog) {
        Snapshot snapshot = rootSnapshot(catalog);
        return snapshot == null ? OptionalLong.empty() : committedCheckpoint(snapshot.summary());
    }

    /** The root table's current snapshot; null before the container's first commit. */
    Snapshot rootSnapshot(CatalogConnection catalog) {
        TableIdentifier root = MirrorTables.table(container, flattenerConfig().rootTable());
        return catalog.catalog().tableExists(root) ? catalog.catalog().loadTable(root).currentSnapshot() : null;
    }

    /** The checkpoint of this run the committed tables end at; empty when the last commit is not this run's. */
    OptionalLong committedCheckpoint(Map<String, String> summary) {
        String checkpoint = summary.get(CHECKPOINT_ID);
        return run.equals(summary.get(RUN)) && checkpoint != null
                ? OptionalLong.of(Long.parseLong(checkpoint))
                : OptionalLong.empty();
    }

    /** The entries a commit of {@code checkpoint} carries in its summary. */
    Map<String, String> carried(long checkpoint) {
        return Map.of(RUN, run, CHECKPOINT_ID, Long.toString(checkpoint));
    }
}
