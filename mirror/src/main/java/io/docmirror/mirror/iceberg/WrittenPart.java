package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.SchemaScan;
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
 * @param kept the documents that changed the schema, as a {@link SchemaScan} keeps them
 * @param events how many documents it took
 * @param lastEventTs the latest {@code _ts} of its documents, in milliseconds (0: none)
 * @param complete whether its files hold every document of the part; false for a part written from a start the
 *     schema plan guessed wrong, whose values its guessed columns could not hold (it has no files then)
 */
public record WrittenPart(Map<String, List<DataFile>> files, String schema, List<SchemaScan.Kept> kept, long events,
        long lastEventTs, boolean complete) implements Serializable {
    public WrittenPart {
        files = Map.copyOf(files);
        requireNonNull(schema, "schema is null");
        kept = List.copyOf(kept);
    }

    /** What writing the part learned of the schema, as a scan of it from the same start would have. */
    public SchemaScan.Result asScan() {
        return new SchemaScan.Result(kept, SchemaCodec.structureToJson(SchemaCodec.fromJson(schema)), events);
    }

    /** How many data files it wrote. */
    public int fileCount() {
        return files.values().stream().mapToInt(List::size).sum();
    }
}
