package io.docmirror.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two mirrors of one container hold the same tables: the same flattener schema (columns, types, variants, child
 * tables, tallies), the same columns and column roles in every table, the same conflicts, and the same rows in every
 * flattened table, the history and the dead letters, as their views read them.
 */
public final class SameTables {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SameTables() {
    }

    public static void assertSame(Path actual, Path expected, String container) throws IOException, SQLException {
        assertSame(actual, expected, container, true);
    }

    /**
     * As {@link #assertSame(Path, Path, String)}, but for which documents the tallies of conflicts name as samples:
     * those are the first few a flattener met, and writers that flatten in parallel meet them in another order.
     */
    public static void assertSameButSamples(Path actual, Path expected, String container)
            throws IOException, SQLException {
        assertSame(actual, expected, container, false);
    }

    private static void assertSame(Path actual, Path expected, String container, boolean samples)
            throws IOException, SQLException {
        ContainerSnapshot actualSnapshot = ContainerSnapshot.read(actual, container).orElseThrow();
        ContainerSnapshot expectedSnapshot = ContainerSnapshot.read(expected, container).orElseThrow();
        assertSameSchema(actualSnapshot, expectedSnapshot, samples);
        List<String> relations = new ArrayList<>();
        expectedSnapshot.tables().forEach(table -> relations.add("\"" + table.name() + "\""));
        relations.add("\"" + expectedSnapshot.root().name() + "_history\"");
        relations.add("dead_letters");
        try (MirrorSql actualSql = MirrorSql.open(actual, container);
                MirrorSql expectedSql = MirrorSql.open(expected, container)) {
            for (String relation : relations) {
                String query = "SELECT * FROM " + relation + " ORDER BY ALL";
                assertThat(actualSql.rows(query)).as(query).isEqualTo(expectedSql.rows(query));
            }
        }
    }

    /**
     * As {@link #assertSame(Path, Path, String)}, for mirrors in any catalog and warehouse (a REST catalog, an object
     * store, which DuckDB's views cannot read): every table's rows as Iceberg's own reader returns them, deletion
     * vectors applied. For a container without an analytical TTL, whose views leave out no row.
     */
    public static void assertSame(CatalogSettings actual, CatalogSettings expected, String container)
            throws IOException {
        assertSame(actual, expected, container, false);
    }

    /**
     * As {@link #assertSame(CatalogSettings, CatalogSettings, String)}, for a mirror whose writers flatten in parallel
     * (a scaled-out stream's): they meet new paths and conflicts in another order than one writer does, so its
     * tables' columns (with their ids), its child tables and its conflicts may come in another order, its conflicts
     * name other samples and other column types met first, and its schema changed in other steps; which they are, and
     * every row, are the same. A path's variant columns are named in the order their kinds come (a second numeric kind
     * gets the next name), so a workload whose path takes two numeric kinds beside its column's may name them the
     * other way round: not mapped.
     */
    public static void assertSameInAnyOrder(CatalogSettings actual, CatalogSettings expected, String container)
            throws IOException {
        assertSame(actual, expected, container, true);
    }

    private static void assertSame(CatalogSettings actual, CatalogSettings expected, String container,
            boolean anyOrder) throws IOException {
        // The readers stay open while the tables are read: an object store's FileIO ends with its catalog.
        try (CatalogReader actualCatalog = CatalogReader.open(actual);
                CatalogReader expectedCatalog = CatalogReader.open(expected)) {
            ContainerSnapshot actualSnapshot = ContainerSnapshot.read(actualCatalog, container).orElseThrow();
            ContainerSnapshot expectedSnapshot = ContainerSnapshot.read(expectedCatalog, container).orElseThrow();
            assertThat(actualSnapshot.analyticalTtl()).as("the analytical TTL of " + container).isNegative();
            if (anyOrder) {
                assertSameSchemaInAnyOrder(actualSnapshot, expectedSnapshot);
            } else {
                assertSameSchema(actualSnapshot, expectedSnapshot, true);
            }
            Map<String, Table> actualTables = actualCatalog.pointers(container)
                    .tables(MirrorTables.namespace(container));
            Map<String, Table> expectedTables = expectedCatalog.pointers(container)
                    .tables(MirrorTables.namespace(container));
            // A table one mirror lacks holds no rows, as its view does (a catalog may hold an empty dead-letter
            // table that another registers only with its first row).
            Set<String> names = new TreeSet<>(expectedTables.keySet());
            names.addAll(actualTables.keySet());
            for (String name : names) {
                // Both read by the same columns, in one order (the schemas' columns are the same, checked above).
                List<String> columns = columnNames(expectedTables.getOrDefault(name, actualTables.get(name)));
                assertSameRows(name, icebergRows(actualTables.get(name), columns),
                        icebergRows(expectedTables.get(name), columns), columns);
            }
        }
    }

    /**
     * A table's rows through {@code IcebergGenerics}, each as its schema's columns' values, in one order; none of
     * null.
     */
    public static List<List<Object>> icebergRows(Table table) throws IOException {
        return table == null ? new ArrayList<>() : icebergRows(table, columnNames(table));
    }

    private static List<String> columnNames(Table table) {
        return table.schema().columns().stream().map(Types.NestedField::name).toList();
    }

    /** As {@link #icebergRows(Table)}, each row as the values of {@code columns}, in their order. */
    private static List<List<Object>> icebergRows(Table table, List<String> columns) throws IOException {
        List<List<Object>> rows = new ArrayList<>();
        if (table == null) {
            return rows;
        }
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                List<Object> row = new ArrayList<>();
                // The schema's columns only: a v3 table's records carry its row lineage too (_row_id and the
                // like), which follows the files' layout rather than the documents.
                for (String column : columns) {
                    row.add(record.getField(column));
                }
                rows.add(row);
            }
        }
        rows.sort(Comparator.comparing(Object::toString));
        return rows;
    }

    /** The rows of a table, the first difference named by its row and columns (rows of a wide table are long). */
    private static void assertSameRows(String name, List<List<Object>> actual, List<List<Object>> expected,
            List<String> columns) {
        for (int row = 0; row < Math.min(actual.size(), expected.size()); row++) {
            List<String> differences = new ArrayList<>();
            for (int column = 0; column < expected.get(row).size(); column++) {
                if (!Objects.equals(actual.get(row).get(column), expected.get(row).get(column))) {
                    differences.add(columns.get(column) + ": " + actual.get(row).get(column)
                            + " but " + expected.get(row).get(column) + " expected");
                }
            }
            assertThat(differences).as("row %d of %s: %s", row, name, actual.get(row).subList(0,
                    Math.min(3, actual.get(row).size()))).isEmpty();
        }
        assertThat(actual.size()).as("the rows of " + name).isEqualTo(expected.size());
    }

    private static void assertSameSchema(ContainerSnapshot actual, ContainerSnapshot expected, boolean samples)
            throws IOException {
        assertThat(withSamples(flattenerSchema(actual), samples))
                .isEqualTo(withSamples(flattenerSchema(expected), samples));
        assertThat(columns(actual)).isEqualTo(columns(expected));
        assertThat(withSamples(conflicts(actual), samples)).isEqualTo(withSamples(conflicts(expected), samples));
    }

    private static void assertSameSchemaInAnyOrder(ContainerSnapshot actual, ContainerSnapshot expected)
            throws IOException {
        assertThat(inAnyOrder(flattenerSchema(actual))).isEqualTo(inAnyOrder(flattenerSchema(expected)));
        assertThat(columnsInAnyOrder(actual)).isEqualTo(columnsInAnyOrder(expected));
        assertThat(conflictsInAnyOrder(conflicts(actual))).isEqualTo(conflictsInAnyOrder(conflicts(expected)));
    }

    /**
     * A flattener schema without its conflicts' order, samples and first column types, its columns' ids and its
     * version (how many times it changed, which goes by how the changes were batched), its tables, each table's
     * columns and its overflows in one order.
     */
    private static JsonNode inAnyOrder(JsonNode schema) {
        ObjectNode ordered = (ObjectNode) withSamples(schema, false);
        ordered.remove("version");
        for (JsonNode table : ordered.path("tables")) {
            table.path("columns").forEach(column -> ((ObjectNode) column).remove("id"));
            ((ObjectNode) table).set("columns", sorted(table.path("columns")));
        }
        ordered.set("conflicts", conflictsInAnyOrder(ordered.path("conflicts")));
        for (String list : List.of("tables", "overflows")) {
            if (ordered.has(list)) {
                ordered.set(list, sorted(ordered.get(list)));
            }
        }
        return ordered;
    }

    /**
     * Conflicts without their sample ids and the type their column had when each was first met (a column that widens
     * later), in one order.
     */
    private static ArrayNode conflictsInAnyOrder(JsonNode conflicts) {
        withSamples(conflicts, false).findParents("keptType")
                .forEach(parent -> ((ObjectNode) parent).remove("keptType"));
        return sorted(conflicts);
    }

    /** A JSON array's elements in the order of their text. */
    private static ArrayNode sorted(JsonNode array) {
        List<JsonNode> elements = new ArrayList<>();
        array.forEach(elements::add);
        elements.sort(Comparator.comparing(JsonNode::toString));
        return JSON.createArrayNode().addAll(elements);
    }

    /** Each flattened table's columns (name, type and JSON path) in the order of their names, and column roles. */
    private static Map<String, List<Object>> columnsInAnyOrder(ContainerSnapshot snapshot) throws IOException {
        Map<String, List<Object>> columns = new TreeMap<>();
        for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
            List<Object> described = new ArrayList<>(new TreeSet<>(table.table().schema().columns().stream()
                    .map(field -> field.name() + " " + field.type() + " " + field.doc()).toList()));
            // An object's fields in any order.
            described.add(JSON.readTree(table.table().properties().get(MirrorProperties.COLUMN_ROLES)));
            columns.put(table.name(), described);
        }
        return columns;
    }

    private static JsonNode conflicts(ContainerSnapshot snapshot) throws IOException {
        return JSON.readTree(snapshot.rootProperty(MirrorProperties.CONFLICTS).orElse("[]"));
    }

    /** The JSON as it is, or without the sample ids of its conflicts. */
    private static JsonNode withSamples(JsonNode json, boolean samples) {
        if (!samples) {
            json.findParents("sampleIds").forEach(parent -> ((ObjectNode) parent).remove("sampleIds"));
        }
        return json;
    }

    private static JsonNode flattenerSchema(ContainerSnapshot snapshot) throws IOException {
        String location = snapshot.rootSnapshot().summary().get(MirrorSummary.FLATTENER_SCHEMA);
        try (InputStream in = snapshot.root().table().io().newInputFile(location).newStream()) {
            return JSON.readTree(in);
        }
    }

    /** Each flattened table's columns (name, type and JSON path, in order) and column roles. */
    private static Map<String, List<String>> columns(ContainerSnapshot snapshot) {
        Map<String, List<String>> columns = new TreeMap<>();
        for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
            List<String> described = new ArrayList<>();
            for (Types.NestedField field : table.table().schema().columns()) {
                described.add(field.name() + " " + field.type() + " " + field.doc());
            }
            described.add(table.table().properties().get(MirrorProperties.COLUMN_ROLES));
            columns.put(table.name(), described);
        }
        return columns;
    }
}
