package io.docmirror.flink;

import io.docmirror.mirror.iceberg.WrittenShard;

import org.apache.flink.util.InstantiationUtil;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What one writer hands the committer at a checkpoint: the files it wrote and the rows its changes replaced, the
 * changes it proposed for a schema decision since the last checkpoint (in the order they came), and how far it read
 * the topic. It travels as bytes ({@link #bytes}): Iceberg's data files are Java-serializable, and Flink's own
 * serializers would fall back to Kryo for them.
 *
 * @param checkpoint the Flink checkpoint it belongs to
 * @param subtask the writer's subtask index: the committer decides the proposals in the writers' order
 * @param shard the files and deletions
 * @param proposed the change envelopes (record values) proposed since the last checkpoint, in order
 * @param nextOffsets by topic partition ({@code <topic>-<partition>}), the next offset after the last record seen
 * @param reached by feed range, the highest LSN of the changes seen
 */
record ShardCommittable(long checkpoint, int subtask, WrittenShard shard, List<byte[]> proposed,
        Map<String, Long> nextOffsets, Map<Integer, Long> reached) implements Serializable {
    ShardCommittable {
        requireNonNull(shard, "shard is null");
        proposed = List.copyOf(proposed);
        nextOffsets = Map.copyOf(nextOffsets);
        reached = Map.copyOf(reached);
    }

    /** Whether the writer read nothing since the last checkpoint: no files, no proposals, no offsets. */
    boolean isEmpty() {
        return shard.events() == 0 && shard.files().isEmpty() && shard.deletions().isEmpty() && proposed.isEmpty()
                && nextOffsets.isEmpty();
    }

    byte[] bytes() {
        try {
            return InstantiationUtil.serializeObject(this);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the committable of checkpoint " + checkpoint
                    + " of writer " + subtask, e);
        }
    }

    static ShardCommittable of(byte[] bytes) {
        try {
            // The job's class loader, which knows the job jar's classes on a cluster.
            return InstantiationUtil.deserializeObject(bytes, ShardCommittable.class.getClassLoader());
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("Cannot read a writer's committable (" + bytes.length + " bytes)", e);
        }
    }
}
