package io.docmirror.mirror.manifest;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;
import java.util.TreeMap;

/**
 * Where in its source a manifest version's data ends, committed atomically with that data: a restart resumes right
 * after it, so no change is lost and none is applied twice.
 *
 * @param continuation the embedded change feed's continuation token; {@code null} when the source is Kafka or
 *     nothing was read yet
 * @param kafkaOffsets the next Kafka offset to read per {@code topic-partition}; empty when the source is the
 *     embedded feed
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Checkpoint(String continuation, Map<String, Long> kafkaOffsets) {
    public static final Checkpoint NONE = new Checkpoint(null, Map.of());

    public Checkpoint {
        kafkaOffsets = kafkaOffsets == null ? Map.of() : Map.copyOf(new TreeMap<>(kafkaOffsets));
    }

    public static Checkpoint ofContinuation(String continuation) {
        return new Checkpoint(continuation, Map.of());
    }
}
