package io.docmirror.mirror.manifest;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The DuckDB SQL that reads one manifest version: merge-on-read current state per table, and the history.
 *
 * <ul>
 *   <li>Root table: of each key {@code (_pk, id)} the row with the highest {@code _lsn} across base and delta
 *       files, unless it is a tombstone ({@code _deleted}).</li>
 *   <li>Child table: the rows that belong to their document's current version, i.e. whose {@code (_id, _pk, _lsn)}
 *       is a current root row. An update replaces a document's child rows, a delete removes them.</li>
 *   <li>Analytical TTL: rows whose {@code _ts} is older than the TTL are left out at once, before any compaction
 *       removes them from files.</li>
 *   <li>Every column is converted to its current type and given its SQL name, so older files written before a
 *       column existed or widened read the same as new ones (a missing column reads NULL). A widened number column
 *       is converted exactly, file group by file group ({@link #read}).</li>
 * </ul>
 */
public final class ViewDefinitions {
    private final Manifest manifest;
    private final Path containerDirectory;
    private final OptionalLong asOfEpochSeconds;

    /**
     * @param asOfEpochSeconds the time the analytical TTL counts back from; empty: the query's own
     *     {@code current_timestamp}
     */
    public ViewDefinitions(Manifest manifest, Path containerDirectory, OptionalLong asOfEpochSeconds) {
        this.manifest = requireNonNull(manifest, "manifest is null");
        this.containerDirectory = requireNonNull(containerDirectory, "containerDirectory is null");
        this.asOfEpochSeconds = requireNonNull(asOfEpochSeconds, "asOfEpochSeconds is null");
    }

    /**
     * The current state of {@code table}.
     *
     * @param rootRelation the SQL name of the root table's current-state view, which a child table joins to
     */
    public String currentState(TableEntry table, String rootRelation) {
        if (table.files().isEmpty()) {
            return "SELECT " + typedNulls(table.columns()) + " WHERE false";
        }
        return "SELECT " + castColumns(table.columns()) + " FROM (" + currentRows(table, rootRelation) + ")";
    }

    /**
     * The current rows of {@code table} under their physical column names, each column in the table's current
     * type: what a view shows, and what compaction keeps. The table must have files.
     *
     * <p>Before the first compaction every file is a delta, and the newest version of each key is found over all of
     * them. After it, the base file holds one current row per key as of the compacted version, and every key in a
     * newer delta supersedes its base row; so the newest version of each key is looked for among the deltas only,
     * and the base is read with a cheap anti join against the deltas' keys (filters on the base, a point lookup
     * say, reach its sorted row groups).
     *
     * @param rootRelation the root table's current rows (a view, or this method's SQL for the root in parentheses)
     */
    public String currentRows(TableEntry table, String rootRelation) {
        List<DataFile> base = files(table, DataFile.Kind.BASE);
        List<DataFile> deltas = files(table, DataFile.Kind.DELTA);
        if (table.isRoot()) {
            if (base.isEmpty()) {
                return newestVersions(table, deltas);
            }
            String baseRows = "SELECT b.* FROM " + read(table, base) + " AS b"
                    + (deltas.isEmpty() ? "" : " ANTI JOIN (SELECT _pk, id FROM " + readParquet(deltas)
                            + ") AS d ON b._pk = d._pk AND b.id = d.id")
                    + " WHERE true" + ttlCondition("b._ts");
            return deltas.isEmpty() ? baseRows : baseRows + " UNION ALL BY NAME " + newestVersions(table, deltas);
        }
        List<DataFile> rootDeltas = files(manifest.root(), DataFile.Kind.DELTA);
        boolean rootCompacted = !files(manifest.root(), DataFile.Kind.BASE).isEmpty();
        if (!rootCompacted || manifest.analyticalTtl() >= 0) {
            // Whether a child row is current depends on its document's current version (and its _ts): join to it.
            return "SELECT c.* FROM " + read(table, table.files()) + " AS c SEMI JOIN " + rootRelation
                    + " AS r ON c._id = r.id AND c._pk = r._pk AND c._lsn = r._lsn";
        }
        // The child base belongs to the root base: its rows are current unless their document changed since.
        List<String> parts = new ArrayList<>();
        if (!base.isEmpty()) {
            parts.add("SELECT c.* FROM " + read(table, base) + " AS c" + (rootDeltas.isEmpty() ? ""
                    : " ANTI JOIN (SELECT _pk, id FROM " + readParquet(rootDeltas) + ") AS d ON c._pk = d._pk AND "
                            + "c._id = d.id"));
        }
        if (!deltas.isEmpty()) {
            parts.add("SELECT c.* FROM " + read(table, deltas) + " AS c SEMI JOIN (" + newestKeys(rootDeltas)
                    + ") AS r ON c._id = r.id AND c._pk = r._pk AND c._lsn = r._lsn");
        }
        return String.join(" UNION ALL BY NAME ", parts);
    }

    /**
     * Of each key in {@code files} the newest version, unless it is a tombstone or past the analytical TTL: the
     * versions that no version of the same key with a higher LSN supersedes. Written as an anti join on the key
     * columns, so a query's filters reach the files' row groups (ranking whole rows with a window kept them from
     * it). DuckDB 1.4 answered this anti join wrongly once a filter sat on top of it (1.5.6 and 2.0 answer it right);
     * {@code CompactionTest} fails on such a version.
     */
    private String newestVersions(TableEntry table, List<DataFile> files) {
        return "SELECT v.* FROM " + read(table, files) + " AS v ANTI JOIN (SELECT _pk, id, _lsn FROM "
                + readParquet(files) + ") AS newer"
                + " ON v._pk = newer._pk AND v.id = newer.id AND newer._lsn > v._lsn"
                + " WHERE v._deleted IS NOT TRUE" + ttlCondition("v._ts");
    }

    /** Each root key in {@code files} with the LSN of its newest version: {@code _pk, id, _lsn}. */
    private String newestKeys(List<DataFile> files) {
        return "SELECT _pk, id, max(_lsn) AS _lsn FROM " + readParquet(files) + " GROUP BY _pk, id";
    }

    private static List<DataFile> files(TableEntry table, DataFile.Kind kind) {
        return table.files().stream().filter(file -> file.kind() == kind).toList();
    }

    /**
     * Every change of the container, oldest first per key: {@code id, _pk, _lsn, _ts, _commit_time, operation,
     * ttl_expired, document}.
     */
    public String history() {
        if (manifest.history().isEmpty()) {
            return "SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS _pk, NULL::BIGINT AS _lsn, NULL::BIGINT AS _ts, "
                    + "NULL::TIMESTAMP AS _commit_time, NULL::VARCHAR AS operation, NULL::BOOLEAN AS ttl_expired, "
                    + "NULL::VARCHAR AS document WHERE false";
        }
        return "SELECT id, _pk, _lsn, _ts, _commit_time, operation, ttl_expired, document FROM "
                + readParquet(manifest.history()) + " WHERE true" + ttlCondition("_ts");
    }

    /** Documents that could not be mirrored: {@code container, id, _lsn, reason, raw_document}. */
    public String deadLetters() {
        if (manifest.deadLetters().isEmpty()) {
            return "SELECT NULL::VARCHAR AS container, NULL::VARCHAR AS id, NULL::BIGINT AS _lsn, "
                    + "NULL::VARCHAR AS reason, NULL::VARCHAR AS raw_document WHERE false";
        }
        return "SELECT container, id, _lsn, reason, raw_document FROM " + readParquet(manifest.deadLetters());
    }

    private String ttlCondition(String tsColumn) {
        if (manifest.analyticalTtl() < 0) {
            return "";
        }
        String now = asOfEpochSeconds.isPresent()
                ? Long.toString(asOfEpochSeconds.getAsLong())
                : "epoch(current_timestamp)";
        return " AND " + tsColumn + " > " + now + " - " + manifest.analyticalTtl();
    }

    /**
     * The rows of {@code table}'s {@code files}, each column in the type the table has now. A number column that
     * widened since a file was written is converted exactly: files are read in groups that hold the same types, and
     * each group is converted on its own, because one read of files whose types differ would first bring them to a
     * common type, which for BIGINT, DOUBLE and DECIMAL is DOUBLE, and round.
     */
    private String read(TableEntry table, List<DataFile> files) {
        Map<Map<String, String>, List<DataFile>> groups = typeGroups(table, files);
        if (groups.size() == 1 && groups.containsKey(Map.of())) {
            return readParquet(files);
        }
        return groups.entrySet().stream()
                .map(group -> readGroup(table, group.getKey(), group.getValue()))
                .collect(Collectors.joining(" UNION ALL BY NAME ", "(", ")"));
    }

    /**
     * The rows of {@code files}, all of one type group of {@code table} ({@link #typeGroupsOf}), each column in the
     * table's current type: a query to read from, or to copy into one file of the current types.
     */
    public String readTypeGroup(TableEntry table, List<DataFile> files) {
        Map<Map<String, String>, List<DataFile>> groups = typeGroups(table, files);
        if (groups.size() != 1) {
            throw new IllegalArgumentException("The files of " + table.name() + " to read as one type group hold "
                    + groups.size() + " groups of types");
        }
        Map.Entry<Map<String, String>, List<DataFile>> group = groups.entrySet().iterator().next();
        return readGroup(table, group.getKey(), group.getValue());
    }

    /** {@code files} in groups whose number columns hold the same types (a read of each group is exact). */
    public static List<List<DataFile>> typeGroupsOf(TableEntry table, List<DataFile> files) {
        return List.copyOf(typeGroups(table, files).values());
    }

    /** Files by the number columns they hold in a narrower type than the table has now, and those types. */
    private static Map<Map<String, String>, List<DataFile>> typeGroups(TableEntry table, List<DataFile> files) {
        Map<String, String> currentTypes = currentTypes(table);
        Map<Map<String, String>, List<DataFile>> groups = new LinkedHashMap<>();
        for (DataFile file : files) {
            Map<String, String> narrower = new TreeMap<>(file.numberTypes());
            narrower.entrySet().removeIf(column -> column.getValue().equals(currentTypes.get(column.getKey())));
            groups.computeIfAbsent(narrower, types -> new ArrayList<>()).add(file);
        }
        return groups;
    }

    private String readGroup(TableEntry table, Map<String, String> narrower, List<DataFile> files) {
        if (narrower.isEmpty()) {
            return "SELECT * FROM " + readParquet(files);
        }
        Map<String, String> currentTypes = currentTypes(table);
        return "SELECT * REPLACE (" + narrower.entrySet().stream()
                .map(column -> exactConversion(column.getKey(), column.getValue(), currentTypes.get(column.getKey())))
                .collect(Collectors.joining(", ")) + ") FROM " + readParquet(files);
    }

    private static Map<String, String> currentTypes(TableEntry table) {
        Map<String, String> types = new HashMap<>();
        table.columns().forEach(column -> types.put(column.physicalName(), sqlType(column)));
        return types;
    }

    /**
     * {@code column} from its type in a file to the wider type its table has now, exactly. A double becomes a
     * DECIMAL through its shortest spelling, the number the flattener saw; a cast from the double itself would
     * round its binary value instead.
     */
    private static String exactConversion(String column, String fileType, String tableType) {
        String name = identifier(column);
        String element = tableType.endsWith("[]") ? tableType.substring(0, tableType.length() - 2) : null;
        if (fileType.equals("DOUBLE") && tableType.startsWith("DECIMAL(")) {
            return "CAST(CAST(" + name + " AS VARCHAR) AS " + tableType + ") AS " + name;
        }
        if (fileType.equals("DOUBLE[]") && element != null && element.startsWith("DECIMAL(")) {
            return "list_transform(" + name + ", lambda e: CAST(CAST(e AS VARCHAR) AS " + element + ")) AS " + name;
        }
        return "CAST(" + name + " AS " + tableType + ") AS " + name;
    }

    private String readParquet(List<DataFile> files) {
        return files.stream()
                .map(file -> literal(containerDirectory.resolve(file.path()).toString()))
                .collect(Collectors.joining(", ", "read_parquet([", "], union_by_name = true)"));
    }

    private static String castColumns(List<ColumnEntry> columns) {
        return columns.stream()
                .map(column -> "CAST(" + identifier(column.physicalName()) + " AS " + sqlType(column)
                        + ") AS " + identifier(column.name()))
                .collect(Collectors.joining(", "));
    }

    private static String typedNulls(List<ColumnEntry> columns) {
        return columns.stream()
                .map(column -> "CAST(NULL AS " + sqlType(column) + ") AS " + identifier(column.name()))
                .collect(Collectors.joining(", "));
    }

    /** JSON text is served as VARCHAR: DuckDB's JSON type would need an extension in a sandbox that loads none. */
    public static String sqlType(ColumnEntry column) {
        return column.type().replace("JSON", "VARCHAR");
    }

    /** A double-quoted SQL identifier. */
    public static String identifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** A single-quoted SQL string literal. */
    public static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
