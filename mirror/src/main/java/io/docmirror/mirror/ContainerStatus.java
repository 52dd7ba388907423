package io.docmirror.mirror;

import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.mirror.manifest.ConflictEntry;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How far one container's mirror has come: {@code ./docmirror status} and the mirror's metrics.
 *
 * @param version the newest committed manifest version (0: nothing mirrored yet)
 * @param lastCommitMillis when it was committed, epoch milliseconds (0: never)
 * @param lag per feed range: the LSN of the last change the mirror holds, the log's end, and how far behind
 * @param storedRows rows in the root table's files (every version and tombstone until compaction)
 * @param conflicts values that did not fit their column's type or their table's column limit, so far
 */
public record ContainerStatus(String container, long version, long lastCommitMillis, List<ChangeFeedEstimator.Lag> lag,
        int tables, long storedRows, int files, long deadLetters, long conflicts) {
    public ContainerStatus {
        lag = List.copyOf(lag);
    }

    /** The status of a mirrored container, measured against the store's change log now. */
    public static ContainerStatus of(Path mirrorDirectory, StoreClient store, ContainerProperties container,
            Clock clock) {
        Optional<Manifest> manifest = new ManifestStore(MirrorLayout.containerDirectory(mirrorDirectory,
                container.id())).latest();
        List<ChangeFeedEstimator.Lag> lag = ChangeFeedEstimator.estimate(store, container.id(),
                manifest.map(committed -> committed.checkpoint().reached()), clock);
        return new ContainerStatus(container.id(),
                manifest.map(Manifest::version).orElse(0L),
                manifest.map(Manifest::committedAt).orElse(0L),
                lag,
                manifest.map(committed -> committed.tables().size()).orElse(0),
                manifest.map(committed -> committed.root().rows()).orElse(0L),
                manifest.map(committed -> committed.tables().stream().mapToInt(table -> table.files().size()).sum())
                        .orElse(0),
                manifest.map(committed -> committed.deadLetters().stream().mapToLong(DataFile::rows).sum())
                        .orElse(0L),
                manifest.map(committed -> committed.conflicts().stream().mapToLong(ConflictEntry::count).sum())
                        .orElse(0L));
    }

    /** Changes committed to the store that the mirror does not hold yet. */
    public long lagEvents() {
        return ChangeFeedEstimator.eventsBehind(lag);
    }

    /** How old the oldest change the mirror does not hold yet is; zero when there is none. */
    public Duration lagTime() {
        return ChangeFeedEstimator.timeBehind(lag);
    }
}
