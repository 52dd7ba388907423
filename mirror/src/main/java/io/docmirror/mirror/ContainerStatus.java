package io.docmirror.mirror;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreException;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How far one container's mirror has come: {@code ./docmirror status} and the mirror's metrics.
 *
 * @param batch the newest committed batch (0: nothing mirrored yet)
 * @param lastCommitMillis when it was committed, epoch milliseconds (0: never)
 * @param lag per feed range: the LSN of the last change the mirror holds, the log's end, and how far behind; empty
 *     when the store does not answer
 * @param storedRows rows in the root table's data files (deleted rows included until compaction)
 * @param conflicts values that did not fit their column's type or their table's column limit, so far
 * @param storeUnreachable why the store could not be asked how far behind the mirror is (it restarts, say);
 *     {@code null} when it answered
 * @param damagedFiles the files of the committed snapshot that cannot be read as recorded (missing, truncated), each
 *     described; their tables fail to answer until {@code docmirror repair} mends them
 * @param cosmosFeedMode mirroring a Cosmos DB account, which of its change feeds, in words; {@code null} otherwise
 */
public record ContainerStatus(String container, long batch, long lastCommitMillis, List<ChangeFeedEstimator.Lag> lag,
        int tables, long storedRows, int files, long deadLetters, long conflicts, String storeUnreachable,
        List<String> damagedFiles, String cosmosFeedMode) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public ContainerStatus {
        lag = List.copyOf(lag);
        damagedFiles = List.copyOf(damagedFiles);
    }

    /**
     * The status of every mirrored container of the embedded catalog of {@code mirrorDirectory}; see
     * {@link #ofMirroredContainers(CatalogSettings, StoreClient, Clock)}.
     */
    public static List<ContainerStatus> ofMirroredContainers(Path mirrorDirectory, StoreClient store, Clock clock) {
        return ofMirroredContainers(CatalogSettings.embedded(mirrorDirectory), store, clock);
    }

    /**
     * The status of every mirrored container, measured against the store's change log now: the containers the store
     * lists as mirrored, or, when the store does not answer, those the mirror's catalog holds tables of, with the
     * store's error and no lag.
     */
    public static List<ContainerStatus> ofMirroredContainers(CatalogSettings catalog, StoreClient store,
            Clock clock) {
        List<ContainerProperties> containers;
        try {
            containers = store.listContainers();
        } catch (StoreException e) {
            if (!e.isRetriable()) {
                throw e;
            }
            try (CatalogReader reader = CatalogReader.open(catalog)) {
                return reader.pointers().locations().keySet().stream()
                        .map(table -> table.namespace().level(0)).distinct().sorted()
                        .flatMap(container -> ContainerSnapshot.read(reader, container).stream())
                        .map(tables -> of(tables, List.of(), e.getMessage()))
                        .toList();
            }
        }
        List<ContainerStatus> statuses = new ArrayList<>();
        try (CatalogReader reader = CatalogReader.open(catalog)) {
            for (ContainerProperties container : containers) {
                if (container.isMirrored()) {
                    statuses.add(of(reader, store, container, clock));
                }
            }
        }
        return statuses;
    }

    /** The status of a mirrored container of the embedded catalog of {@code mirrorDirectory}. */
    public static ContainerStatus of(Path mirrorDirectory, StoreClient store, ContainerProperties container,
            Clock clock) {
        try (CatalogReader reader = CatalogReader.open(CatalogSettings.embedded(mirrorDirectory))) {
            return of(reader, store, container, clock);
        }
    }

    /** The status of a mirrored container, its tables read from {@code catalog}, measured against the store now. */
    public static ContainerStatus of(CatalogReader catalog, StoreClient store, ContainerProperties container,
            Clock clock) {
        Optional<ContainerSnapshot> tables = ContainerSnapshot.read(catalog, container.id());
        Optional<String> reached = tables.map(ContainerStatus::checkpoint).map(Checkpoint::reached);
        List<ChangeFeedEstimator.Lag> lag;
        try {
            lag = ChangeFeedEstimator.estimate(store, container.id(), reached, clock);
        } catch (StoreException e) {
            if (!e.isRetriable()) {
                throw e;
            }
            return tables.map(committed -> of(committed, List.of(), e.getMessage()))
                    .orElseGet(() -> nothingMirrored(container.id(), List.of(), e.getMessage()));
        }
        return tables.map(committed -> of(committed, lag, null))
                .orElseGet(() -> nothingMirrored(container.id(), lag, null));
    }

    private static ContainerStatus nothingMirrored(String container, List<ChangeFeedEstimator.Lag> lag,
            String storeUnreachable) {
        return new ContainerStatus(container, 0, 0, lag, 0, 0, 0, 0, 0, storeUnreachable, List.of(), null);
    }

    private static ContainerStatus of(ContainerSnapshot tables, List<ChangeFeedEstimator.Lag> lag,
            String storeUnreachable) {
        Map<String, String> summary = tables.rootSnapshot().summary();
        long conflicts = 0;
        for (JsonNode conflict : readTree(tables.rootProperty(MirrorProperties.CONFLICTS).orElse("[]"))) {
            conflicts += conflict.path("count").asLong();
        }
        return new ContainerStatus(tables.container(), Long.parseLong(summary.get(MirrorSummary.BATCH)),
                tables.rootSnapshot().timestampMillis(), lag, tables.tables().size(),
                Long.parseLong(summary.getOrDefault("total-records", "0")),
                tables.tables().stream().mapToInt(table -> table.view().dataFiles().size()).sum(),
                tables.deadLetterCount(), conflicts, storeUnreachable, tables.damagedFiles(),
                checkpoint(tables).cosmosFeedMode().orElse(null));
    }

    private static Checkpoint checkpoint(ContainerSnapshot tables) {
        String checkpoint = tables.rootSnapshot().summary().get(MirrorSummary.CHECKPOINT);
        if (checkpoint == null) {
            return Checkpoint.NONE;
        }
        try {
            return JSON.readValue(checkpoint, Checkpoint.class);
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The checkpoint of " + tables.container() + " cannot be read", e);
        }
    }

    private static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "A property of the mirror's tables cannot be read: " + json, e);
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
