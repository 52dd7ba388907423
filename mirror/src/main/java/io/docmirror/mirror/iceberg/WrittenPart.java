package io.docmirror.mirror.iceberg;

import org.apache.iceberg.DataFile;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What a part of a backfill written elsewhere ({@link PartWriter}) hands back to be committed
 * ({@link BackfillInParts#add}).
 *
 * @param files the data files it wrote, by table
 * @param schema the schema its flattener ended with, with the tallies it counted ({@code SchemaCodec.toJson})
 * @param events how many documents it took
 * @param lastEventTs the latest {@code _ts} of its documents, in milliseconds (0: none)
 */
public record WrittenPart(Map<String, List<DataFile>> files, String schema, long events, long lastEventTs)
        implements Serializable {
    public WrittenPart {
        files = Map.copyOf(files);
        requireNonNull(schema, "schema is null");
    }

    /** How many data files it wrote. */
    public int fileCount() {
        return files.values().stream().mapToInt(List::size).sum();
    }
}
