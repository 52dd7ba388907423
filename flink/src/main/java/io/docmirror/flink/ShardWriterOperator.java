package io.docmirror.flink;

import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.mirror.iceberg.RowPlace;
import io.docmirror.mirror.iceberg.ShardWriter;
import io.docmirror.mirror.iceberg.WrittenShard;
import io.docmirror.mirror.iceberg.ShardedBatch.CommittedTarget;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One parallel writer of the job, keyed by document: a {@link ShardWriter} writes the changes of its documents, and
 * Flink's keyed state keeps where each document's rows are and the changes it holds for a schema decision. At each
 * checkpoint barrier it hands the committer a {@link ShardCommittable} (as bytes).
 *
 * <p>A change whose document needs the schema to change is held, and so is every later change of its document; each
 * held change is proposed to the committer once, in the order it came. After the commit of checkpoint c the changes
 * proposed at or before c are applied in order ({@link ShardWriter#applyDecided}); one that still needs a decision is
 * proposed again. The writer learns of commits from the catalog, polled while it holds anything.
 */
final class ShardWriterOperator extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<FeedRecord, byte[]>, ProcessingTimeCallback {
    private static final long serialVersionUID = 1L;
    /** How often the catalog is asked for a new commit while changes are held. */
    private static final long POLL_MILLIS = 100;
    /** How often otherwise: to write against the latest schema, and to see whether the writer's files need compacting. */
    private static final long CHECK_MILLIS = 1000;
    private static final String HELD = "held";
    private static final Logger log = LoggerFactory.getLogger(ShardWriterOperator.class);

    private MirroredContainer mirrored;
    private transient ValueState<byte[]> rows;
    private transient ListState<HeldChange> held;
    private transient ListState<String> runState;
    private transient CatalogConnection catalog;
    private transient ShardWriter shard;
    /** The keys with held changes: rebuilt from the keyed state on restore. */
    private transient Set<String> heldKeys;
    /** The keys whose held changes were proposed since the last barrier, and the proposals in order. */
    private transient Set<String> proposedKeys;
    private transient List<byte[]> proposed;
    private transient Map<String, Long> nextOffsets;
    private transient Map<Integer, Long> reached;
    /** The last checkpoint of this run the writer knows committed; -1 before any. */
    private transient long committed;
    /** When the next look at the catalog is due; 0: none is. */
    private transient long nextPollAt;
    /**
     * The writer compacts its files only once the commits it knows hold every checkpoint it handed a compaction over
     * with (restored: the checkpoint it is restored from), so that it never plans a compaction twice.
     */
    private transient long compactAfter;
    /** The commit the writer last compacted after. */
    private transient long compactedAt;

    ShardWriterOperator(MirroredContainer mirrored) {
        this.mirrored = mirrored;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        rows = context.getKeyedStateStore().getState(
                new ValueStateDescriptor<>("rows", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        held = context.getKeyedStateStore().getListState(
                new ListStateDescriptor<>(HELD, TypeInformation.of(HeldChange.class)));
        // Every writer gets the run back, whatever the parallelism it is restored at.
        runState = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("run", Types.STRING));
        mirrored = mirrored.restored(runState.get());
        heldKeys = new LinkedHashSet<>();
        try (Stream<Object> keys = getKeyedStateBackend().getKeys(HELD, VoidNamespace.INSTANCE)) {
            keys.forEach(key -> heldKeys.add((String) key));
        }
        proposedKeys = new LinkedHashSet<>();
        proposed = new ArrayList<>();
        nextOffsets = new HashMap<>();
        reached = new HashMap<>();
        // Unknown until the first poll, which applies what a restored writer holds and was committed.
        committed = -1;
        compactAfter = context.getRestoredCheckpointId().orElse(0);
        compactedAt = -1;
        catalog = mirrored.openCatalog();
        CommittedTarget target = mirrored.committed(catalog, 1);
        TaskInfo task = getRuntimeContext().getTaskInfo();
        // The same name for the same documents: a restored or rescaled writer compacts the files of its key groups.
        shard = new ShardWriter(target.target(), "w" + task.getIndexOfThisSubtask() + "of"
                + task.getNumberOfParallelSubtasks() + "m" + task.getMaxNumberOfParallelSubtasks());
        if (!context.isRestored()) {
            learnRows(target);
        }
    }

    /**
     * At the job's first start on tables that hold rows (written by {@code mirror run}, a backfill or an earlier run
     * of the job): where the rows of this writer's documents are.
     */
    private void learnRows(CommittedTarget target) {
        TaskInfo task = getRuntimeContext().getTaskInfo();
        // Straight into the keyed state, row by row: what this takes grows with the container, so none of it stays
        // in heap (the state backend keeps it on disk).
        target.forEachDocumentRow(catalog.catalog(), catalog.workers(), (key, row) -> {
            if (KeyGroupRangeAssignment.assignKeyToParallelOperator(key, task.getMaxNumberOfParallelSubtasks(),
                    task.getNumberOfParallelSubtasks()) == task.getIndexOfThisSubtask()) {
                setCurrentKey(key);
                try {
                    List<RowPlace> places = new ArrayList<>(RowPlaces.decode(rows.value()));
                    places.add(row);
                    rows.update(RowPlaces.encode(places));
                } catch (Exception e) {
                    throw new IllegalStateException("Cannot keep the rows of document " + key, e);
                }
            }
        });
    }

    @Override
    public void open() throws Exception {
        super.open();
        poll(heldKeys.isEmpty() ? CHECK_MILLIS : POLL_MILLIS);
    }

    @Override
    public void processElement(StreamRecord<FeedRecord> element) throws Exception {
        FeedRecord record = element.getValue();
        nextOffsets.merge(record.topicPartition(), record.offset + 1, Math::max);
        reached.merge(record.feedRange, record.lsn, Math::max);
        List<HeldChange> waiting = heldOf();
        if (waiting.isEmpty()) {
            ChangeEvent event = ChangeEnvelope.fromValue(record.value);
            ShardWriter.Applied applied = shard.apply(event, RowPlaces.decode(rows.value()));
            if (applied.applied()) {
                keep(applied.rows());
                return;
            }
        }
        waiting.add(propose(record.key, record.value));
        held.update(waiting);
        heldKeys.add(record.key);
        poll(POLL_MILLIS);
    }

    private List<HeldChange> heldOf() throws Exception {
        List<HeldChange> waiting = new ArrayList<>();
        for (HeldChange change : held.get()) {
            waiting.add(change);
        }
        return waiting;
    }

    private void keep(List<RowPlace> places) throws Exception {
        if (places.isEmpty()) {
            rows.clear();
        } else {
            rows.update(RowPlaces.encode(places));
        }
    }

    private HeldChange propose(String key, byte[] value) {
        proposedKeys.add(key);
        proposed.add(value);
        return new HeldChange(value, HeldChange.UNSET);
    }

    /** Looks at the catalog in {@code delay} milliseconds, unless a look is due sooner. */
    private void poll(long delay) {
        long due = getProcessingTimeService().getCurrentProcessingTime() + delay;
        if (nextPollAt == 0 || due < nextPollAt) {
            nextPollAt = due;
            getProcessingTimeService().registerTimer(due, this);
        }
    }

    @Override
    public void onProcessingTime(long time) throws Exception {
        if (time < nextPollAt) {
            // A look a sooner one replaced.
            return;
        }
        nextPollAt = 0;
        catchUp();
        int tierFiles = mirrored.compactionFiles();
        if (tierFiles > 0 && committed >= compactAfter && committed > compactedAt) {
            shard.compact(tierFiles, this::moved);
            compactedAt = committed;
        }
        poll(heldKeys.isEmpty() ? CHECK_MILLIS : POLL_MILLIS);
    }

    /** A row of a document moved: the writer compacted its files. */
    private void moved(String key, RowPlace from, RowPlace to) {
        setCurrentKey(key);
        try {
            List<RowPlace> places = new ArrayList<>(shard.current(RowPlaces.decode(rows.value())));
            int moved = places.indexOf(from);
            if (moved < 0) {
                throw new IllegalStateException("A compaction moved a row of document " + key + " from " + from
                        + ", where the writer does not know it to be (it knows " + places + ")");
            }
            places.set(moved, to);
            rows.update(RowPlaces.encode(places));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot keep the rows of document " + key, e);
        }
    }

    /**
     * Writes against the tables as the catalog last committed them, when a commit of this run came since the writer
     * last looked, and applies the held changes it decided.
     */
    private void catchUp() throws Exception {
        OptionalLong latest = mirrored.committedCheckpoint(catalog);
        if (latest.isPresent() && latest.getAsLong() > committed) {
            // The tables as they are now, which may be a commit later still: its schema and checkpoint go together.
            CommittedTarget target = mirrored.committed(catalog, latest.getAsLong() + 1);
            OptionalLong checkpoint = mirrored.committedCheckpoint(target.summary());
            if (checkpoint.isPresent() && checkpoint.getAsLong() > committed) {
                committed = checkpoint.getAsLong();
                shard.retarget(target.target());
                applyHeld();
            }
        }
    }

    /** Applies, in order, the held changes the commits up to {@link #committed} decided. */
    private void applyHeld() throws Exception {
        for (String key : List.copyOf(heldKeys)) {
            setCurrentKey(key);
            List<HeldChange> waiting = heldOf();
            List<RowPlace> places = RowPlaces.decode(rows.value());
            int applied = 0;
            boolean proposedAgain = false;
            while (applied < waiting.size() && waiting.get(applied).proposedAt != HeldChange.UNSET
                    && waiting.get(applied).proposedAt <= committed) {
                HeldChange first = waiting.get(applied);
                ShardWriter.Applied result = shard.applyDecided(ChangeEnvelope.fromValue(first.value), places);
                if (!result.applied()) {
                    // Decided without what it needs (the decision came before it): it needs another.
                    log.info("A held change of {} proposed at checkpoint {} still needs a schema decision after "
                            + "the commit of checkpoint {}: proposed again", key, first.proposedAt, committed);
                    waiting.set(applied, propose(key, first.value));
                    proposedAgain = true;
                    break;
                }
                places = result.rows();
                applied++;
            }
            if (applied > 0) {
                keep(places);
            }
            List<HeldChange> rest = waiting.subList(applied, waiting.size());
            if (rest.isEmpty()) {
                held.clear();
                heldKeys.remove(key);
            } else if (applied > 0 || proposedAgain) {
                held.update(new ArrayList<>(rest));
            }
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        // Once a checkpoint, even holding nothing: a writer that writes against an old schema has its files copied
        // at each commit when a column widened since (and they hold its values). Before the shard is finished, so
        // that what it applies is in this checkpoint's shard as in its state.
        catchUp();
        // The proposals go to the committer with this checkpoint: its commit decides them.
        for (String key : proposedKeys) {
            setCurrentKey(key);
            List<HeldChange> waiting = heldOf();
            waiting.forEach(change -> {
                if (change.proposedAt == HeldChange.UNSET) {
                    change.proposedAt = checkpointId;
                }
            });
            held.update(waiting);
        }
        WrittenShard written = shard.finish();
        if (!written.compacted().isEmpty()) {
            compactAfter = checkpointId;
        }
        ShardCommittable committable = new ShardCommittable(checkpointId,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), written, proposed, nextOffsets, reached);
        output.collect(new StreamRecord<>(committable.bytes()));
        proposedKeys.clear();
        proposed.clear();
        nextOffsets.clear();
        reached.clear();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        runState.update(List.of(mirrored.run()));
    }

    @Override
    public void close() throws Exception {
        try {
            if (shard != null) {
                shard.close();
            }
        } finally {
            try {
                if (catalog != null) {
                    catalog.close();
                }
            } finally {
                super.close();
            }
        }
    }
}
