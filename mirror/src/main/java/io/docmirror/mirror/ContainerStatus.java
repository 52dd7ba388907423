package io.docmirror.mirror;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How far one container's mirror has come: {@code ./docmirror status}.
 *
 * @param version the newest committed manifest version (0: nothing mirrored yet)
 * @param lastCommitMillis when it was committed, epoch milliseconds (0: never)
 * @param mirroredLsn per feed range, the LSN of the last change the mirror holds
 * @param lagEvents changes committed to the store that the mirror does not hold yet
 * @param lagSeconds how old the oldest of those is (0 when there are none)
 * @param storedRows rows in the root table's files (every version and tombstone until compaction)
 */
public record ContainerStatus(String container, long version, long lastCommitMillis, Map<Integer, Long> mirroredLsn,
        long lagEvents, double lagSeconds, int tables, long storedRows, int files, long deadLetters) {

    /** The status of a mirrored container, measured against the store's change log now. */
    public static ContainerStatus of(Path mirrorDirectory, StoreClient store, ContainerProperties container,
            Clock clock) {
        Optional<Manifest> manifest = new ManifestStore(MirrorLayout.containerDirectory(mirrorDirectory,
                container.id())).latest();
        Map<Integer, Long> positions = new TreeMap<>();
        String continuation = manifest.map(committed -> committed.checkpoint().continuation()).orElse(null);
        if (continuation != null) {
            positions.putAll(ContinuationToken.decode(continuation).positions());
        }
        long lagEvents = 0;
        long oldestUnmirrored = Long.MAX_VALUE;
        for (int range = 0; range < container.logPartitions(); range++) {
            long position = positions.getOrDefault(range, 0L);
            positions.put(range, position);
            ChangeLogPage next = store.readChangeLog(container.id(), range, Math.max(position,
                    store.readChangeLog(container.id(), range, Long.MAX_VALUE, 1).logStartLsn()), 1);
            lagEvents += next.logEndLsn() - position;
            if (!next.events().isEmpty()) {
                oldestUnmirrored = Math.min(oldestUnmirrored, next.events().get(0).ts());
            }
        }
        double lagSeconds = oldestUnmirrored == Long.MAX_VALUE
                ? 0
                : Math.max(0, clock.millis() - oldestUnmirrored) / 1000.0;
        return new ContainerStatus(container.id(),
                manifest.map(Manifest::version).orElse(0L),
                manifest.map(Manifest::committedAt).orElse(0L),
                positions, lagEvents, lagSeconds,
                manifest.map(committed -> committed.tables().size()).orElse(0),
                manifest.map(committed -> committed.root().rows()).orElse(0L),
                manifest.map(committed -> committed.tables().stream().mapToInt(table -> table.files().size()).sum())
                        .orElse(0),
                manifest.map(committed -> committed.deadLetters().stream().mapToLong(DataFile::rows).sum())
                        .orElse(0L));
    }
}
