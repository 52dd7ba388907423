package io.docmirror.flink;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.iceberg.ShardedBatch;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.iceberg.Snapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The job's one committer (parallelism 1): on each completed checkpoint it commits every checkpoint up to it that it
 * has the writers' committables of, in order, each as one {@link ShardedBatch}: the schema decided for what the
 * writers proposed, every writer's files and deletions, and the topic's offsets, in one catalog commit of every table
 * of the container, whose summary names the run and the checkpoint.
 *
 * <p>The committables not yet committed are in its operator state. Restored, it drops those the tables hold already
 * (the summary names the last checkpoint of the run committed) and commits the rest at once: a checkpoint is never
 * committed twice, and none is skipped.
 */
final class MirrorCommitter extends AbstractStreamOperator<Void> implements OneInputStreamOperator<byte[], Void> {
    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(MirrorCommitter.class);

    private MirroredContainer mirrored;
    private transient ListState<byte[]> pendingState;
    private transient ListState<String> runState;
    private transient ListState<Long> baseState;
    /** The root table's snapshot the run started on (-1: none): its state describes the tables from there on. */
    private transient long base;
    private transient NavigableMap<Long, List<ShardCommittable>> pending;
    private transient ContainerTables tables;

    MirrorCommitter(MirroredContainer mirrored) {
        this.mirrored = mirrored;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        pendingState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("pending", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        runState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("run", Types.STRING));
        mirrored = mirrored.restored(runState.get());
        pending = new TreeMap<>();
        for (byte[] bytes : pendingState.get()) {
            ShardCommittable committable = ShardCommittable.of(bytes);
            pending.computeIfAbsent(committable.checkpoint(), checkpoint -> new ArrayList<>()).add(committable);
        }
        baseState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("base", Types.LONG));
        tables = mirrored.openTables();
        if (!context.isRestored()) {
            // A run restored from its checkpoint applies what its writers held; a new one could not.
            tables.refuseWhileChangesAreHeld();
            base = snapshotId(currentRoot());
            return;
        }
        base = baseState.get().iterator().next();
        long restoredFrom = context.getRestoredCheckpointId().orElseThrow();
        Snapshot current = currentRoot();
        OptionalLong committed = current == null ? OptionalLong.empty()
                : mirrored.committedCheckpoint(current.summary());
        boolean tablesAtState = committed.isPresent() ? committed.getAsLong() <= restoredFrom
                : snapshotId(current) == base;
        if (!tablesAtState) {
            // The tables moved on from what this state describes (a later checkpoint of the run committed, or
            // another writer did: mirror run, a backfill, another run): the writers' row places would be wrong.
            throw new IllegalStateException("The tables of " + mirrored.container() + " moved on since checkpoint "
                    + restoredFrom + ", which this job is restored from, was taken (their last commit is "
                    + (committed.isPresent() ? "checkpoint " + committed.getAsLong() + " of this run"
                            : "not this run's") + "): restore the job from its latest checkpoint, or start it afresh");
        }
        log.info("The committer of {} restored checkpoints {}; the tables hold the run's checkpoint {}",
                mirrored.container(), pending.keySet(), committed.isPresent() ? committed.getAsLong() : "none");
        committed.ifPresent(checkpoint -> pending.headMap(checkpoint, true).clear());
        commitUpTo(Long.MAX_VALUE);
    }

    private Snapshot currentRoot() {
        try (CatalogConnection catalog = mirrored.openCatalog()) {
            return mirrored.rootSnapshot(catalog);
        }
    }

    private static long snapshotId(Snapshot snapshot) {
        return snapshot == null ? -1 : snapshot.snapshotId();
    }

    @Override
    public void processElement(StreamRecord<byte[]> element) {
        ShardCommittable committable = ShardCommittable.of(element.getValue());
        pending.computeIfAbsent(committable.checkpoint(), checkpoint -> new ArrayList<>()).add(committable);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<byte[]> all = new ArrayList<>();
        pending.values().forEach(committables -> committables.forEach(committable -> all.add(committable.bytes())));
        pendingState.update(all);
        runState.update(List.of(mirrored.run()));
        baseState.update(List.of(base));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitUpTo(checkpointId);
    }

    /** Commits every pending checkpoint up to {@code last}, in order, one commit each. */
    private void commitUpTo(long last) {
        NavigableMap<Long, List<ShardCommittable>> due = pending.headMap(last, true);
        while (!due.isEmpty()) {
            Map.Entry<Long, List<ShardCommittable>> first = due.firstEntry();
            commit(first.getKey(), first.getValue());
            due.remove(first.getKey());
        }
    }

    private void commit(long checkpoint, List<ShardCommittable> committables) {
        List<ShardCommittable> writers = new ArrayList<>(committables);
        writers.sort(Comparator.comparingInt(ShardCommittable::subtask));
        List<ChangeEvent> proposed = new ArrayList<>();
        writers.forEach(writer -> writer.proposed().forEach(value -> proposed.add(ChangeEnvelope.fromValue(value))));
        if (proposed.isEmpty() && writers.stream().allMatch(ShardCommittable::isEmpty)) {
            // Nothing read since the last commit: no commit (the writers wait for none).
            return;
        }
        ShardedBatch batch = tables.beginShardedBatch();
        try {
            batch.decide(proposed);
            writers.forEach(writer -> batch.add(writer.shard()));
            batch.commit(feedPosition(writers), mirrored.carried(checkpoint));
        } catch (RuntimeException e) {
            batch.abort();
            throw new IllegalStateException("Cannot commit checkpoint " + checkpoint + " of the job mirroring "
                    + mirrored.container() + " (" + writers.size() + " writers' files, " + proposed.size()
                    + " changes to decide the schema for)", e);
        }
        log.debug("Committed checkpoint {} of {}: {} writers, {} changes decided", checkpoint, mirrored.container(),
                writers.size(), proposed.size());
    }

    /**
     * Where the feed is once the writers' changes are committed: per topic partition the next offset after the last
     * record any writer saw (or the committed one), per feed range the highest LSN.
     */
    private Checkpoint feedPosition(List<ShardCommittable> writers) {
        Checkpoint committed = tables.checkpoint();
        Map<String, Long> offsets = new HashMap<>(committed.kafkaOffsets());
        Map<Integer, Long> reached = new TreeMap<>(committed.kafkaReached() == null ? Map.of()
                : ContinuationToken.decode(committed.kafkaReached()).positions());
        for (ShardCommittable writer : writers) {
            writer.nextOffsets().forEach((partition, offset) -> offsets.merge(partition, offset, Math::max));
            writer.reached().forEach((range, lsn) -> reached.merge(range, lsn, Math::max));
        }
        return new Checkpoint(committed.continuation(), offsets,
                reached.isEmpty() ? null : new ContinuationToken(mirrored.container(), reached).encode());
    }

    @Override
    public void close() throws Exception {
        try {
            if (tables != null) {
                tables.close();
            }
        } finally {
            super.close();
        }
    }
}
