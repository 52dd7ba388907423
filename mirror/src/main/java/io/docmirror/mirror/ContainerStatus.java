package io.docmirror.mirror;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.manifest.Checkpoint;
import io.docmirror.mirror.manifest.ConflictEntry;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * How far one container's mirror has come: {@code ./docmirror status} and the mirror's metrics.
 *
 * @param version the newest committed manifest version, or Iceberg batch (0: nothing mirrored yet)
 * @param lastCommitMillis when it was committed, epoch milliseconds (0: never)
 * @param lag per feed range: the LSN of the last change the mirror holds, the log's end, and how far behind; empty
 *     when the store does not answer
 * @param storedRows rows in the root table's files (every version and tombstone until compaction)
 * @param conflicts values that did not fit their column's type or their table's column limit, so far
 * @param storeUnreachable why the store could not be asked how far behind the mirror is (it restarts, say);
 *     {@code null} when it answered
 * @param damagedFiles the files of the committed version that cannot be read as recorded (missing, truncated), each
 *     described; their tables fail to answer until {@code docmirror repair} mends them
 */
public record ContainerStatus(String container, long version, long lastCommitMillis, List<ChangeFeedEstimator.Lag> lag,
        int tables, long storedRows, int files, long deadLetters, long conflicts, String storeUnreachable,
        List<String> damagedFiles) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public ContainerStatus {
        lag = List.copyOf(lag);
        damagedFiles = List.copyOf(damagedFiles);
    }

    /**
     * The status of every mirrored container, measured against the store's change log now: the containers the store
     * lists as mirrored, or, when the store does not answer, those the mirror directory holds a committed version of,
     * with the store's error and no lag.
     */
    public static List<ContainerStatus> ofMirroredContainers(Path mirrorDirectory, StoreClient store, Clock clock) {
        List<ContainerProperties> containers;
        try {
            containers = store.listContainers();
        } catch (StoreException e) {
            if (!e.isRetriable()) {
                throw e;
            }
            return committedMirrors(mirrorDirectory).stream()
                    .map(manifest -> of(mirrorDirectory, manifest.container(), Optional.of(manifest), List.of(),
                            e.getMessage()))
                    .toList();
        }
        List<ContainerStatus> statuses = new ArrayList<>();
        for (ContainerProperties container : containers) {
            if (container.isMirrored()) {
                statuses.add(of(mirrorDirectory, store, container, clock));
            }
        }
        return statuses;
    }

    /** The status of a mirrored container, measured against the store's change log now. */
    public static ContainerStatus of(Path mirrorDirectory, StoreClient store, ContainerProperties container,
            Clock clock) {
        Optional<Manifest> manifest = new ManifestStore(MirrorLayout.containerDirectory(mirrorDirectory,
                container.id())).latest();
        if (manifest.isEmpty()) {
            Optional<ContainerSnapshot> tables = ContainerSnapshot.read(mirrorDirectory, container.id());
            if (tables.isPresent()) {
                return ofTables(store, container, tables.get(), clock);
            }
        }
        try {
            return of(mirrorDirectory, container.id(), manifest, ChangeFeedEstimator.estimate(store, container.id(),
                    manifest.map(committed -> committed.checkpoint().reached()), clock), null);
        } catch (StoreException e) {
            if (!e.isRetriable()) {
                throw e;
            }
            return of(mirrorDirectory, container.id(), manifest, List.of(), e.getMessage());
        }
    }

    private static ContainerStatus of(Path mirrorDirectory, String container, Optional<Manifest> manifest,
            List<ChangeFeedEstimator.Lag> lag, String storeUnreachable) {
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        return new ContainerStatus(container,
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
                        .orElse(0L),
                storeUnreachable,
                manifest.map(committed -> DamagedFiles.bySize(directory, committed).stream()
                        .map(DamagedFiles.Damage::toString).toList()).orElse(List.of()));
    }

    /** The status of a container mirrored as Iceberg tables. */
    private static ContainerStatus ofTables(StoreClient store, ContainerProperties container,
            ContainerSnapshot tables, Clock clock) {
        Map<String, String> summary = tables.rootSnapshot().summary();
        List<ChangeFeedEstimator.Lag> lag = List.of();
        String storeUnreachable = null;
        try {
            Checkpoint checkpoint = summary.containsKey(MirrorSummary.CHECKPOINT)
                    ? JSON.readValue(summary.get(MirrorSummary.CHECKPOINT), Checkpoint.class) : Checkpoint.NONE;
            lag = ChangeFeedEstimator.estimate(store, container.id(), Optional.ofNullable(checkpoint.reached()),
                    clock);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The checkpoint of " + container.id() + " cannot be read", e);
        } catch (StoreException e) {
            if (!e.isRetriable()) {
                throw e;
            }
            storeUnreachable = e.getMessage();
        }
        long conflicts = 0;
        for (JsonNode conflict : readTree(tables.rootProperty(MirrorProperties.CONFLICTS).orElse("[]"))) {
            conflicts += conflict.path("count").asLong();
        }
        return new ContainerStatus(container.id(), Long.parseLong(summary.get(MirrorSummary.BATCH)),
                tables.rootSnapshot().timestampMillis(), lag, tables.tables().size(),
                Long.parseLong(summary.getOrDefault("total-records", "0")),
                tables.tables().stream().mapToInt(table -> table.view().dataFiles().size()).sum(),
                tables.deadLetterCount(), conflicts, storeUnreachable, tables.damagedFiles());
    }

    private static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A property of the mirror's tables cannot be read: " + json, e);
        }
    }

    /** The newest committed version of every container the mirror directory holds, by container name. */
    private static List<Manifest> committedMirrors(Path mirrorDirectory) {
        if (!Files.isDirectory(mirrorDirectory)) {
            return List.of();
        }
        try (Stream<Path> directories = Files.list(mirrorDirectory)) {
            return directories.filter(Files::isDirectory)
                    .flatMap(directory -> new ManifestStore(directory).latest().stream())
                    .sorted(Comparator.comparing(Manifest::container))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the mirrored containers in " + mirrorDirectory, e);
        }
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
