package io.docmirror.sql;

import io.docmirror.store.ContainerProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Container and table names that want the same SQL name (DuckDB matches names ignoring case) each get a name of
 * their own, recorded in the catalog, and no container's trouble stops another from answering.
 */
class SqlNamingTest {
    @TempDir
    Path work;

    private MirroredData data;

    @BeforeEach
    void open() {
        data = new MirroredData(work);
    }

    @AfterEach
    void close() {
        data.close();
    }

    @Test
    void collidingNamesEachGetADistinctSqlNameAndEveryContainerAnswers() throws Exception {
        // Each container holds one document whose "who" says which container it is.
        for (String container : List.of("Orders", "orders", "a", "a__b", "X", "X_history", "docmirror_tables")) {
            data.store.createContainer(ContainerProperties.of(container, "/pk").withAnalyticalTtl(-1));
            data.store.createItem(container, "{\"id\":\"1\",\"pk\":\"p\",\"who\":\"" + container + "\""
                    + (container.equals("a") ? ",\"b\":[{\"who\":\"a's child b\"}]" : "") + "}");
        }
        data.sync();

        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            Map<String, String> sqlNames = new HashMap<>();
            for (List<Object> row : rows(connection, "SELECT container, table_name, sql_name FROM docmirror_tables")) {
                sqlNames.put(row.get(0) + "/" + row.get(1), (String) row.get(2));
            }
            Set<String> distinct = new HashSet<>();
            sqlNames.values().forEach(name -> assertThat(distinct.add(name.toLowerCase(Locale.ROOT)))
                    .as("SQL name %s is given once, ignoring case: %s", name, sqlNames).isTrue());

            for (String container : List.of("Orders", "orders", "a", "a__b", "X", "X_history", "docmirror_tables")) {
                String view = sqlNames.get(container + "/" + container);
                assertThat(rows(connection, "SELECT who FROM \"" + view + "\""))
                        .as("container %s through %s", container, view).containsExactly(List.of(container));
            }
            assertThat(rows(connection, "SELECT who FROM \"" + sqlNames.get("a/a__b") + "\""))
                    .containsExactly(List.of("a's child b"));
            // The first claimant keeps the plain name: root tables before child tables and histories.
            assertThat(sqlNames).containsEntry("a__b/a__b", "a__b").containsEntry("X_history/X_history", "X_history");
            assertThat(sqlNames.get("a/a__b")).startsWith("a__b__");
            assertThat(sqlNames.get("docmirror_tables/docmirror_tables")).startsWith("docmirror_tables__");
            List<List<Object>> histories = rows(connection,
                    "SELECT container, history_sql_name FROM docmirror_freshness WHERE container = 'X'");
            String history = (String) histories.get(0).get(1);
            assertThat(history).startsWith("X_history__");
            assertThat(rows(connection, "SELECT id, operation FROM \"" + history + "\""))
                    .containsExactly(List.of("1", "CREATE"));
        }
    }

    @Test
    void aContainerWithAnUnreadableFileIsReportedAndTheOthersAnswer() throws Exception {
        mirrorGoodAndDamaged();
        Path damagedFile = data.dataFile("damaged", "damaged");
        byte[] bytes = Files.readAllBytes(damagedFile);
        Files.write(damagedFile, Arrays.copyOf(bytes, bytes.length / 2));

        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, "SELECT id, n FROM good")).containsExactly(List.of("1", 1L));
            assertThat(rows(connection, "SELECT table_name FROM docmirror_tables")).containsExactly(List.of("good"));
            List<List<Object>> errors = rows(connection, "SELECT container, error FROM docmirror_errors");
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0).get(0)).isEqualTo("damaged");
            assertThat((String) errors.get(0).get(1)).contains(damagedFile.getFileName().toString());
        }
    }

    @Test
    void aContainerWhoseDeletionVectorsAreMissingIsReportedAndTheOthersAnswer() throws Exception {
        mirrorGoodAndDamaged();
        data.store.upsertItem("damaged", "{\"id\":\"1\",\"pk\":\"p\",\"n\":2}"); // a deletion vector
        data.sync();
        List<Path> vectors;
        try (Stream<Path> files = Files.walk(data.mirrorDirectory())) {
            vectors = files.filter(file -> file.toString().endsWith(".puffin")
                    && file.toString().contains("damaged")).toList();
        }
        assertThat(vectors).as("the damaged container's Puffin files").isNotEmpty();
        for (Path vector : vectors) {
            Files.delete(vector);
        }

        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, "SELECT id, n FROM good")).containsExactly(List.of("1", 1L));
            List<List<Object>> errors = rows(connection, "SELECT container, error FROM docmirror_errors");
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0).get(0)).isEqualTo("damaged");
            assertThat((String) errors.get(0).get(1)).contains(vectors.get(0).getFileName().toString(),
                    "deletion vector");
        }
    }

    /** Two containers of one document each, mirrored: {@code good} and {@code damaged}, which the test damages. */
    private void mirrorGoodAndDamaged() {
        for (String container : List.of("good", "damaged")) {
            data.store.createContainer(ContainerProperties.of(container, "/pk").withAnalyticalTtl(-1));
            data.store.createItem(container, "{\"id\":\"1\",\"pk\":\"p\",\"n\":1}");
        }
        data.sync();
    }

    private static SqlConfig config() {
        return SqlConfig.defaults().withRefreshInterval(Duration.ZERO);
    }

    private static List<List<Object>> rows(Connection connection, String query) throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= columns; column++) {
                    row.add(result.getObject(column));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
