package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Every decision the flattener has made for one container: its tables and their columns, which paths claimed which
 * structure, and the tallies of conflicts and overflows. It is the flattener's whole memory, so a schema saved with
 * {@link SchemaCodec} and loaded again makes exactly the decisions the original would have made.
 *
 * <p>The version counts changes: it grows by one for every added table, added column or widened column.
 */
public final class ContainerSchema {
    private final FlattenerConfig config;
    private final Map<String, TableSchema> tables = new LinkedHashMap<>();
    private final ColumnNamer tableNamer = new ColumnNamer();
    private final Map<TallyKey, Tally> conflicts = new LinkedHashMap<>();
    private final Map<TallyKey, Tally> overflows = new LinkedHashMap<>();
    private final List<SchemaChange> pendingChanges = new ArrayList<>();
    private long version;

    private record TallyKey(String table, List<String> path, String keptType, String seenType, String resolution) {
    }

    private ContainerSchema(FlattenerConfig config) {
        this.config = requireNonNull(config, "config is null");
        String rootName = tableNamer.claim(config.rootTable());
        tables.put(rootName, new TableSchema(this, rootName, null, JsonPath.ROOT, List.of()));
    }

    /** A schema that has seen no document yet: only the root table with its system columns. */
    public static ContainerSchema create(FlattenerConfig config) {
        return new ContainerSchema(config);
    }

    public FlattenerConfig config() {
        return config;
    }

    public long version() {
        return version;
    }

    public TableSchema root() {
        return tables.values().iterator().next();
    }

    /** Root first, then child tables in the order they appeared. */
    public List<TableSchema> tables() {
        return List.copyOf(tables.values());
    }

    public Optional<TableSchema> findTable(String name) {
        return Optional.ofNullable(tables.get(name));
    }

    public List<Conflict> conflicts() {
        return conflicts.entrySet().stream()
                .map(entry -> new Conflict(entry.getKey().table(), jsonPathOf(entry.getKey()), entry.getKey().keptType(),
                        entry.getKey().seenType(), entry.getKey().resolution(), entry.getValue().count,
                        entry.getValue().sampleIds))
                .toList();
    }

    public List<Overflow> overflows() {
        return overflows.entrySet().stream()
                .map(entry -> new Overflow(entry.getKey().table(), jsonPathOf(entry.getKey()), entry.getValue().count,
                        entry.getValue().sampleIds))
                .toList();
    }

    private JsonPath jsonPathOf(TallyKey key) {
        return tables.get(key.table()).jsonPath().properties(key.path());
    }

    TableSchema addChildTable(TableSchema parent, PathNode node) {
        String name = tableNamer.claim(parent.name() + ColumnNamer.SEPARATOR + ColumnNamer.baseName(node.path));
        TableSchema child = restoreChildTable(parent, node, name);
        record(new SchemaChange.TableAdded(name, parent.name(), child.jsonPath()));
        return child;
    }

    TableSchema restoreChildTable(TableSchema parent, PathNode node, String name) {
        tableNamer.reserve(name);
        TableSchema child = new TableSchema(this, name, parent.name(),
                parent.jsonPath().properties(node.path).eachElement(), node.path);
        tables.put(name, child);
        node.childTable = child;
        return child;
    }

    void record(SchemaChange change) {
        version++;
        pendingChanges.add(change);
    }

    /** The changes since the last call. */
    List<SchemaChange> drainChanges() {
        if (pendingChanges.isEmpty()) {
            return List.of();
        }
        List<SchemaChange> changes = List.copyOf(pendingChanges);
        pendingChanges.clear();
        return changes;
    }

    /** Counts a conflict at a path; the path node keeps its tallies so that repeated conflicts cost no lookup. */
    void countConflict(TableSchema table, PathNode node, String keptType, String seenType, String resolution,
            String documentId) {
        Tally tally = node.findConflictTally(keptType, seenType, resolution);
        if (tally == null) {
            tally = conflicts.computeIfAbsent(new TallyKey(table.name(), node.path, keptType, seenType, resolution),
                    key -> new Tally(keptType, seenType, resolution));
            node.addConflictTally(tally);
        }
        tally.add(documentId);
    }

    void countOverflow(TableSchema table, List<String> path, String documentId) {
        overflows.computeIfAbsent(new TallyKey(table.name(), List.copyOf(path), "", "", ""),
                key -> new Tally("", "", "")).add(documentId);
    }

    /**
     * Adds the tallies {@code later} counted: a flattener that started from this schema's structure
     * ({@link SchemaCodec#structureToJson}) and flattened documents that come after the ones this schema counted.
     * Counts add up, and sample ids are taken in order until a tally has its fill, so the tallies of a sequence of
     * documents flattened in parts, added part by part in order, are the ones one flattener would have counted.
     *
     * @throws IllegalArgumentException when {@code later} has a table this schema lacks
     */
    public void addTallies(ContainerSchema later) {
        requireNonNull(later, "later is null");
        later.conflicts.forEach((key, counted) -> {
            TableSchema table = knownTable(key.table());
            Tally tally = conflicts.computeIfAbsent(key, k -> {
                Tally added = new Tally(key.keptType(), key.seenType(), key.resolution());
                table.node(key.path()).addConflictTally(added);
                return added;
            });
            tally.addAll(counted);
        });
        later.overflows.forEach((key, counted) -> {
            knownTable(key.table());
            overflows.computeIfAbsent(key, k -> new Tally("", "", "")).addAll(counted);
        });
    }

    private TableSchema knownTable(String name) {
        TableSchema table = tables.get(name);
        if (table == null) {
            throw new IllegalArgumentException("Cannot add the tallies of table " + name + ": the schema of "
                    + root().name() + " has no such table");
        }
        return table;
    }

    void restoreVersion(long restored) {
        this.version = restored;
    }

    void restoreConflict(Conflict conflict, List<String> path) {
        Tally tally = conflicts.computeIfAbsent(new TallyKey(conflict.table(), List.copyOf(path), conflict.keptType(),
                conflict.seenType(), conflict.resolution()),
                key -> new Tally(conflict.keptType(), conflict.seenType(), conflict.resolution()));
        tables.get(conflict.table()).node(path).addConflictTally(tally);
        tally.count = conflict.count();
        tally.sampleIds.addAll(conflict.sampleIds());
    }

    void restoreOverflow(Overflow overflow, List<String> path) {
        Tally tally = overflows.computeIfAbsent(new TallyKey(overflow.table(), List.copyOf(path), "", "", ""),
                key -> new Tally("", "", ""));
        tally.count = overflow.count();
        tally.sampleIds.addAll(overflow.sampleIds());
    }
}
