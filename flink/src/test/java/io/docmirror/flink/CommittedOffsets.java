package io.docmirror.flink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.source.Checkpoint;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadataParser;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where the tables' last commit ends in a container's Kafka topic, read as a query would see it (the root table's
 * current metadata, without the catalog's lock): the next offset of each topic partition, from the commit's
 * checkpoint. Both {@code mirror run} and the Flink job commit it there.
 *
 * @param metadata the root table's metadata file; null before the first commit
 * @param commits the last commit's number (the mirror's commits count from 1)
 * @param offsets the next offset of each of the topic's partitions, keyed {@code <topic>-<partition>}
 * @param held how many changes before those offsets the job's writers apply only with the next commit
 *     ({@code MirrorSummary.HELD_CHANGES}; always 0 for {@code mirror run})
 */
record CommittedOffsets(String metadata, long commits, Map<String, Long> offsets, long held) {
    static final CommittedOffsets NONE = new CommittedOffsets(null, 0, Map.of(), 0);
    private static final ObjectMapper JSON = new ObjectMapper();

    static CommittedOffsets read(Path mirror, String container) {
        String metadata = CatalogPointers.read(mirror).locations()
                .get(MirrorTables.table(container, FlattenerConfig.defaults(container).rootTable()));
        if (metadata == null) {
            return NONE;
        }
        Snapshot snapshot = TableMetadataParser.read(new LocalFileIO(), metadata).currentSnapshot();
        if (snapshot == null || !snapshot.summary().containsKey(MirrorSummary.CHECKPOINT)) {
            return NONE;
        }
        try {
            Checkpoint checkpoint = JSON.readValue(snapshot.summary().get(MirrorSummary.CHECKPOINT), Checkpoint.class);
            return new CommittedOffsets(metadata, Long.parseLong(snapshot.summary().get(MirrorSummary.BATCH)),
                    checkpoint.kafkaOffsets(),
                    Long.parseLong(snapshot.summary().getOrDefault(MirrorSummary.HELD_CHANGES, "0")));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The checkpoint of " + metadata + " cannot be read", e);
        }
    }

    /** Whether the commit holds every record before {@code end} (next offsets keyed as {@link #offsets}). */
    boolean reach(Map<String, Long> end) {
        return held == 0 && end.entrySet().stream().allMatch(partition -> offsets.getOrDefault(partition.getKey(), 0L)
                >= partition.getValue());
    }

    /** How many records the commit holds: its offsets summed (a topic without transactions' markers). */
    long records() {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The next offset of {@code partition} of {@code topic}; 0 before any. */
    long next(String topic, int partition) {
        return offsets.getOrDefault(topic + "-" + partition, 0L);
    }
}
