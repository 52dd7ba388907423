package io.docmirror.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
        ContainerSnapshot actualSnapshot = ContainerSnapshot.read(actual, container).orElseThrow();
        ContainerSnapshot expectedSnapshot = ContainerSnapshot.read(expected, container).orElseThrow();
        assertThat(flattenerSchema(actualSnapshot)).isEqualTo(flattenerSchema(expectedSnapshot));
        assertThat(columns(actualSnapshot)).isEqualTo(columns(expectedSnapshot));
        assertThat(actualSnapshot.rootProperty(MirrorProperties.CONFLICTS))
                .isEqualTo(expectedSnapshot.rootProperty(MirrorProperties.CONFLICTS));
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
