package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.source.Checkpoint;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What this process knows of a container's tables as of their last commit: the batch number and the checkpoint it
 * ends at, the flattener's schema, each table's deletion vectors, the root summary's entries that carry on from
 * commit to commit, and whether this knowledge may have parted from the catalog's. Read from the catalog when the
 * tables open ({@link TablesState}), moved on by each commit ({@link BatchCommit}).
 */
final class CommittedTables {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String container;
    private final FlattenerConfig flattenerConfig;
    private Checkpoint checkpoint;
    private long batches;
    private String schema;
    private String schemaLocation;
    private long lastEventTs;
    /** By table: its deletion vectors, by the location of the data file each deletes rows of. */
    private final Map<String, Map<String, DeleteFile>> vectors;
    /** The root summary's entries that carry on from commit to commit: the backfill state, the history's start. */
    private final Map<String, String> carried = new HashMap<>();
    /** The root table's Iceberg UUID, which names the index's commits; null until the root table exists. */
    private String rootUuid;
    /** True from opening the tables for a rebuild or a backfill over them until that commit: they are derived anew. */
    private boolean rebuilding;
    /**
     * False once a backfill's batch is committed. A backfill does not note where each document's rows are: every
     * document it writes is new to the tables (a feed range's snapshot, or tables it replaces), and the index of a
     * large container would take memory that grows with it, where a backfill's stays bounded. These tables then do
     * not know where the backfilled documents are, so they take no other batch: the daemon opens the tables again
     * after a first load, which reads the index from the files.
     */
    private boolean documentsIndexed = true;
    /** Which commit left this process's knowledge possibly apart from the catalog's; null while the two agree. */
    private String outOfStep;
    /** Its schema is the committed one between batches, and grows with a batch's documents until it ends. */
    private Flattener flattener;

    CommittedTables(String container, FlattenerConfig flattenerConfig, TablesState state, boolean rebuilding) {
        this.container = container;
        this.flattenerConfig = flattenerConfig;
        this.checkpoint = state.checkpoint();
        this.batches = state.batches();
        this.schema = state.flattenerSchema();
        this.schemaLocation = state.flattenerSchemaLocation();
        this.lastEventTs = state.lastEventTs();
        this.vectors = new HashMap<>(state.vectors());
        this.rootUuid = state.rootUuid();
        this.rebuilding = rebuilding;
        for (String key : List.of(BackfillState.SUMMARY_KEY, MirrorSummary.HISTORY_FROM)) {
            if (state.summary().containsKey(key)) {
                carried.put(key, state.summary().get(key));
            }
        }
        restoreFlattener();
    }

    Checkpoint checkpoint() {
        return checkpoint;
    }

    /** How many batches were committed. */
    long batches() {
        return batches;
    }

    /** Where the tables are, in words: {@code its start}, {@code batch 12}. */
    String position() {
        return batches == 0 ? "its start" : "batch " + batches;
    }

    /** The flattener's schema the last commit recorded, as JSON; null before the first commit. */
    String schema() {
        return schema;
    }

    /** Where the last commit's flattener schema is; null before the first commit. */
    String schemaLocation() {
        return schemaLocation;
    }

    /** The latest {@code _ts} of a change the tables hold, in milliseconds. */
    long lastEventTs() {
        return lastEventTs;
    }

    /** The deletion vectors of {@code table}'s data files, by data file location. */
    Map<String, DeleteFile> vectors(String table) {
        return vectors.getOrDefault(table, Map.of());
    }

    /** The root summary's entries that carry on from commit to commit. */
    Map<String, String> carried() {
        return Map.copyOf(carried);
    }

    boolean rebuilding() {
        return rebuilding;
    }

    boolean documentsIndexed() {
        return documentsIndexed;
    }

    /** Why this process's knowledge may differ from the catalog's; null while the two agree. */
    String outOfStep() {
        return outOfStep;
    }

    /** Records that a commit's outcome is unknown: every further batch is refused until the tables open again. */
    void partFromCatalog(String why) {
        outOfStep = why;
    }

    Flattener flattener() {
        return flattener;
    }

    /**
     * Makes {@code schema} the flattener's, for a batch that decided it elsewhere (a backfill written in parts); an
     * abandoned batch puts the committed one back ({@link #restoreFlattener}).
     */
    void useSchema(ContainerSchema schema) {
        flattener = new Flattener(schema);
    }

    /** Puts the flattener back to the committed schema (or a fresh one, to rebuild): an abandoned batch's undoing. */
    void restoreFlattener() {
        flattener = schema == null || rebuilding
                ? Flattener.create(flattenerConfig)
                : new Flattener(SchemaCodec.fromJson(schema, flattenerConfig));
    }

    /** The flattener configuration the committed tables were made with. */
    FlattenerConfig flattenerConfigOfTables() {
        return schema == null ? flattenerConfig : SchemaCodec.fromJson(schema).config();
    }

    /**
     * The root table's UUID, read from the catalog the first time (a batch that creates the root table) and after a
     * batch that replaced it.
     */
    String rootUuid(Catalog catalog, TableIdentifier root) {
        if (rootUuid == null || rebuilding) {
            rootUuid = catalog.loadTable(root).uuid().toString();
        }
        return rootUuid;
    }

    /** A backfill that was started and has not finished; empty when there is none. */
    Optional<BackfillState> backfill() {
        String json = carried.get(BackfillState.SUMMARY_KEY);
        if (json == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(json, BackfillState.class));
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The backfill state of " + container + " cannot be read: " + json, e);
        }
    }

    /** From which LSN per feed range the history holds every change (after a backfill); empty: from the start. */
    Map<Integer, Long> historyFrom() {
        String json = carried.get(MirrorSummary.HISTORY_FROM);
        if (json == null) {
            return Map.of();
        }
        try {
            Map<Integer, Long> positions = new HashMap<>();
            JSON.readTree(json).fields().forEachRemaining(range -> positions.put(Integer.parseInt(range.getKey()),
                    range.getValue().asLong()));
            return positions;
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "Where the history of " + container + " starts cannot be read: " + json,
                    e);
        }
    }

    /** Records a commit the catalog took: the tables are at {@code batch} now. */
    void committed(long batch, Checkpoint checkpoint, String schema, String schemaLocation, long lastEventTs,
            Map<String, String> carried) {
        this.batches = batch;
        this.checkpoint = checkpoint;
        this.schema = schema;
        this.schemaLocation = schemaLocation;
        this.lastEventTs = lastEventTs;
        this.carried.clear();
        this.carried.putAll(carried);
    }

    /** Records {@code table}'s deletion vectors after a commit. */
    void vectorsCommitted(String table, Map<String, DeleteFile> tableVectors) {
        vectors.put(table, tableVectors);
    }

    /** Records a commit that replaced the tables: {@code tables} are all there is now, derived anew. */
    void replacedBy(Set<String> tables) {
        vectors.keySet().retainAll(tables);
        rebuilding = false;
    }

    /** Records a backfill's commit, whose documents the index does not know: no other batch is taken. */
    void backfilled() {
        documentsIndexed = false;
    }
}
