package io.docmirror.mirror.source;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.feed.ContinuationToken;

import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Where in its source a commit's data ends, committed atomically with that data: a restart resumes right
 * after it, so no change is lost and none is applied twice.
 *
 * @param continuation a change feed continuation token: every change at or below it is in the mirror. Mirroring
 *     from the embedded feed, reading resumes right after it; mirroring from Kafka, it is where the mirror stood when
 *     it switched to Kafka (after a backfill, say), and the topic's changes at or below it are skipped. {@code null}
 *     when nothing was mirrored before
 * @param kafkaOffsets the next Kafka offset to read per {@code topic-partition}; empty unless the mirror reads Kafka
 * @param kafkaReached mirroring from Kafka, a continuation token of the newest change the mirror holds per feed
 *     range (changes below it may still be on their way, in another topic partition); it measures the mirror's lag
 * @param cosmosFeed mirroring a Cosmos DB account, that source's own position in the account's change feed (JSON
 *     the source writes and reads; the mirror keeps it as it is, and shows its {@code describe} member, the feed
 *     mode in words); {@code null} unless the mirror reads an account
 * @param cosmosReached mirroring a Cosmos DB account, a continuation token of the newest LSN the mirror holds per
 *     feed range (the account's partition key ranges in order), like {@code kafkaReached}
 * @param historyFrom per feed range, the LSN after which the mirror's history holds every change, for a source that
 *     loads a container's current documents before it streams its changes (a Cosmos DB account); empty when the
 *     history holds every change or a backfill recorded where it starts
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Checkpoint(String continuation, Map<String, Long> kafkaOffsets, String kafkaReached, String cosmosFeed,
        String cosmosReached, Map<Integer, Long> historyFrom) {
    public static final Checkpoint NONE = new Checkpoint(null, Map.of(), null);
    private static final ObjectMapper JSON = new ObjectMapper();

    public Checkpoint {
        kafkaOffsets = kafkaOffsets == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(kafkaOffsets));
        historyFrom = historyFrom == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(historyFrom));
    }

    /** A checkpoint of the store's change feed or of Kafka. */
    public Checkpoint(String continuation, Map<String, Long> kafkaOffsets, String kafkaReached) {
        this(continuation, kafkaOffsets, kafkaReached, null, null, Map.of());
    }

    /** A checkpoint of a Cosmos DB account's change feed. */
    public static Checkpoint ofCosmosFeed(String cosmosFeed, String cosmosReached, Map<Integer, Long> historyFrom) {
        return new Checkpoint(null, Map.of(), null, requireNonNull(cosmosFeed, "cosmosFeed is null"), cosmosReached,
                historyFrom);
    }

    public static Checkpoint ofContinuation(String continuation) {
        return new Checkpoint(continuation, Map.of(), null);
    }

    /** Whether the mirror reads its changes from Kafka. */
    @JsonIgnore
    public boolean isKafka() {
        return !kafkaOffsets.isEmpty() || kafkaReached != null;
    }

    /** Whether the mirror reads its changes from a Cosmos DB account. */
    @JsonIgnore
    public boolean isCosmos() {
        return cosmosFeed != null;
    }

    /**
     * Which feed a Cosmos DB account's container is mirrored from, in words (its mode, and what that mode leaves out);
     * empty unless the mirror reads an account.
     */
    @JsonIgnore
    public Optional<String> cosmosFeedMode() {
        if (cosmosFeed == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(cosmosFeed).path("describe").asText("Cosmos DB change feed"));
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "A Cosmos DB checkpoint cannot be read: " + e.getOriginalMessage(), e);
        }
    }

    /** The newest change the mirror holds per feed range, as a continuation token; {@code null} before any. */
    @JsonIgnore
    public String reached() {
        return kafkaReached != null ? kafkaReached : cosmosReached != null ? cosmosReached : continuation;
    }

    /** The newest LSN per feed range the mirror holds ({@link #reached()} decoded); empty before any. */
    @JsonIgnore
    public Map<Integer, Long> reachedPositions() {
        String reached = reached();
        return reached == null ? Map.of() : ContinuationToken.decode(reached).positions();
    }

    /**
     * How far the data reaches, for readers: {@code feed range N} → the newest LSN the mirror holds of it, and reading
     * Kafka, {@code <topic>-<partition>} → the next offset to read.
     */
    @JsonIgnore
    public Map<String, Long> positions() {
        Map<String, Long> positions = new TreeMap<>(kafkaOffsets);
        reachedPositions().forEach((range, lsn) -> positions.put("feed range " + range, lsn));
        return positions;
    }
}
