package io.docmirror.mirror.iceberg;

import org.apache.iceberg.DataFile;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What one writer of a scaled-out stream wrote between two checkpoints ({@link ShardWriter#finish}), for the one
 * commit that takes every writer's ({@link ShardedBatch#add}).
 *
 * @param files the data files written, by table (flattened tables, the history, the dead letters)
 * @param fileSchemas the id of the table's schema each data file was written against, by the file's location
 * @param deletions the rows the writer's changes replaced: by table, by data file, their positions
 * @param compacted the committed data files the writer compacted, by table: their live rows are in {@code files}
 * @param tallies the conflicts and overflows the writer counted: flattener schemas with tallies
 *     ({@code SchemaCodec.toJson}), each started from a structure the committed schema holds
 * @param events how many changes the writer applied
 * @param lastEventTs the latest {@code _ts} of those changes, in milliseconds; 0 when none
 * @param base the number of the committed batch the writer wrote against first since its last shard (0: none): the
 *     rows it names in files copied since are found in the copies ({@link CopiedFiles})
 */
public record WrittenShard(Map<String, List<DataFile>> files, Map<String, Integer> fileSchemas,
        Map<String, Map<String, long[]>> deletions, Map<String, List<String>> compacted, List<String> tallies,
        long events, long lastEventTs, long base)
        implements Serializable {
    public WrittenShard {
        files = Map.copyOf(files);
        fileSchemas = Map.copyOf(fileSchemas);
        deletions = Map.copyOf(deletions);
        compacted = Map.copyOf(compacted);
        tallies = List.copyOf(tallies);
    }
}
