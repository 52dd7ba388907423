package io.docmirror.mirror.source;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.docmirror.feed.ContinuationToken;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

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
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Checkpoint(String continuation, Map<String, Long> kafkaOffsets, String kafkaReached) {
    public static final Checkpoint NONE = new Checkpoint(null, Map.of(), null);

    public Checkpoint {
        kafkaOffsets = kafkaOffsets == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(kafkaOffsets));
    }

    public static Checkpoint ofContinuation(String continuation) {
        return new Checkpoint(continuation, Map.of(), null);
    }

    /** Whether the mirror reads its changes from Kafka. */
    @JsonIgnore
    public boolean isKafka() {
        return !kafkaOffsets.isEmpty() || kafkaReached != null;
    }

    /** The newest change the mirror holds per feed range, as a continuation token; {@code null} before any. */
    @JsonIgnore
    public String reached() {
        return kafkaReached != null ? kafkaReached : continuation;
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
