package io.docmirror.sql;

import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.TableView;
import org.duckdb.DuckDBConnection;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static io.docmirror.layout.TableView.identifier;
import static io.docmirror.layout.TableView.literal;


/**
 * Writes the SQL catalog into the {@link ServingCopy}, in the transaction that brings the copy to a snapshot of the
 * mirror: a view per mirrored table (current state) and a {@code <container>_history} view per container over the
 * copied tables, each under the name {@link SqlNames} gives it, and the catalog ({@code docmirror_tables},
 * {@code docmirror_columns}, {@code docmirror_conflicts}, {@code docmirror_dead_letters}, {@code docmirror_freshness},
 * {@code docmirror_errors}).
 */
final class CatalogWriter {
    /** The catalog's own relations (views, and tables for what is fixed per snapshot). */
    static final List<String> CATALOG_VIEWS = List.of("docmirror_tables", "docmirror_columns",
            "docmirror_conflicts", "docmirror_dead_letters", "docmirror_freshness", "docmirror_errors");

    private final SqlNames names;
    private final List<String> tableRows = new ArrayList<>();
    private final List<String> columnRows = new ArrayList<>();
    private final List<String> conflictRows = new ArrayList<>();
    private final List<String> deadLetterSelects = new ArrayList<>();
    private final List<String> freshnessRows = new ArrayList<>();
    private final List<String> errorRows = new ArrayList<>();
    /** The keys of the copied tables the catalog shows ({@link CopiedTable}). */
    private final Set<String> copied = new HashSet<>();
    /** Where data files in an object store are copied to be read. */
    private final Path staging;
    private final AppliedVectors vectors;

    private CatalogWriter(SqlNames names, Path staging, AppliedVectors vectors) {
        this.names = names;
        this.staging = staging;
        this.vectors = vectors;
    }

    /** A container whose tables cannot be copied now (a data file that cannot be read, say). */
    static final class ContainerFailure extends Exception {
        private final String container;

        ContainerFailure(String container, SQLException cause) {
            super(cause.getMessage(), cause);
            this.container = container;
        }

        String container() {
            return container;
        }
    }

    /**
     * Brings every container's copied tables to {@code snapshot} and creates its views, then the catalog, replacing
     * the views and catalog there were. A container of {@code failed} is left out and listed in
     * {@code docmirror_errors} with its reason; its copied tables stay as they were.
     *
     * @param staging where data files in an object store are copied to be read
     * @param vectors the deletion vectors the copy applied last
     * @return the keys of the copied tables the catalog now shows: every other one of a container not in
     *     {@code failed} is left over
     * @throws ContainerFailure when a container's tables cannot be copied: roll the transaction back and write
     *     again with it among {@code failed}
     */
    static Set<String> write(DuckDBConnection connection, MirrorSnapshot snapshot, Map<String, String> failed,
            Path staging, AppliedVectors vectors) throws SQLException, ContainerFailure {
        CatalogWriter writer = new CatalogWriter(SqlNames.assign(snapshot.containers(), CATALOG_VIEWS), staging,
                vectors);
        dropViewsAndCatalog(connection);
        for (Map.Entry<String, MirroredContainer> container : snapshot.containers().entrySet()) {
            String reason = failed.get(container.getKey());
            if (reason == null) {
                writer.serve(connection, container.getKey(), container.getValue());
            } else {
                writer.errorRows.add("(" + literal(container.getKey()) + ", " + literal(reason
                        + " (when a file is damaged, `docmirror repair --container " + container.getKey()
                        + "` mends it)") + ")");
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String sql : writer.catalogStatements()) {
                statement.execute(sql);
            }
        }
        return writer.copied;
    }

    /** The key of one of a container's copied tables. */
    static String key(String container, String table) {
        return container + "\n" + table;
    }

    /** Whether a copied table's key is one of {@code container}'s. */
    static boolean isOf(String key, String container) {
        return key.startsWith(container + "\n");
    }

    /** Drops every view and table of the main schema: the endpoint's own, since users can create none. */
    private static void dropViewsAndCatalog(DuckDBConnection connection) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet relations = statement.executeQuery("SELECT 'VIEW', view_name FROM duckdb_views() "
                        + "WHERE schema_name = 'main' AND NOT internal AND NOT temporary UNION ALL "
                        + "SELECT 'TABLE', table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                        + "AND NOT temporary")) {
            while (relations.next()) {
                drops.add("DROP " + relations.getString(1) + " " + identifier(relations.getString(2)));
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String drop : drops) {
                statement.execute(drop);
            }
        }
    }

    /** Copies one container's tables and creates its views, and its rows of the catalog. */
    private void serve(DuckDBConnection connection, String container, MirroredContainer mirrored)
            throws SQLException, ContainerFailure {
        List<MirroredContainer.Table> tables = mirrored.tables();
        String root = names.table(container, tables.get(0).name());
        try (Statement statement = connection.createStatement()) {
            for (MirroredContainer.Table table : tables) {
                statement.execute("CREATE VIEW " + identifier(names.table(container, table.name())) + " AS "
                        + mirrored.currentState(table, copy(connection, container, table.name(),
                                mirrored.view(table)), identifier(root)));
            }
            Optional<TableView> history = mirrored.historyView();
            statement.execute("CREATE VIEW " + identifier(names.history(container)) + " AS " + mirrored.history(
                    history.isEmpty() ? Optional.empty()
                            : Optional.of(copy(connection, container, "\nhistory", history.get()))));
            Optional<TableView> deadLetters = mirrored.deadLettersView();
            deadLetterSelects.add(deadLetters.isEmpty() ? ContainerSnapshot.NO_DEAD_LETTERS
                    : copy(connection, container, "\ndead-letters", deadLetters.get()));
        } catch (SQLException e) {
            throw new ContainerFailure(container, e);
        }
        freshnessRows.add("(" + literal(container) + ", " + mirrored.version() + "::BIGINT, "
                + timestamp(mirrored.committedAt()) + ", " + timestamp(mirrored.lastEventTs()) + ", "
                + positions(mirrored.positions()) + ", " + literal(names.history(container)) + ")");
        for (MirroredContainer.Table table : tables) {
            String sqlName = names.table(container, table.name());
            tableRows.add("SELECT " + literal(table.name()) + ", " + literal(container) + ", "
                    + nullableLiteral(table.parent()) + ", " + literal(table.jsonPath()) + ", "
                    + "(SELECT count(*) FROM " + identifier(sqlName) + "), " + table.columns().size()
                    + ", " + table.files() + ", " + literal(sqlName));
            for (int index = 0; index < table.columns().size(); index++) {
                MirroredContainer.Column column = table.columns().get(index);
                columnRows.add("(" + literal(table.name()) + ", " + (index + 1) + ", " + literal(column.name())
                        + ", " + literal(column.type()) + ", " + literal(column.role()) + ", "
                        + nullableLiteral(column.jsonPath()) + ", " + literal(container) + ", " + literal(sqlName)
                        + ")");
            }
        }
        for (MirroredContainer.Conflict conflict : mirrored.conflicts()) {
            conflictRows.add("(" + literal(container) + ", " + literal(conflict.table()) + ", "
                    + literal(conflict.jsonPath()) + ", " + nullableLiteral(conflict.keptType()) + ", "
                    + nullableLiteral(conflict.seenType()) + ", " + literal(conflict.resolution()) + ", "
                    + conflict.count() + ", " + conflict.sampleIds().stream().map(TableView::literal)
                    .collect(Collectors.joining(", ", "[", "]::VARCHAR[]")) + ")");
        }
    }

    /** Brings one table's copy to {@code view}: the query of its live rows. */
    private String copy(DuckDBConnection connection, String container, String table, TableView view)
            throws SQLException {
        String key = key(container, table);
        copied.add(key);
        return CopiedTable.bringTo(connection, key, view, staging, vectors).select(view.schema());
    }

    private List<String> catalogStatements() {
        List<String> statements = new ArrayList<>();
        statements.add("CREATE VIEW docmirror_tables AS SELECT * FROM ("
                + (tableRows.isEmpty() ? "SELECT NULL, NULL, NULL, NULL, NULL::BIGINT, NULL::INTEGER, "
                        + "NULL::INTEGER, NULL WHERE false" : String.join(" UNION ALL ", tableRows))
                + ") AS t(table_name, container, parent_table, json_path, \"rows\", \"columns\", files, sql_name)");
        statements.add("CREATE TABLE docmirror_columns (table_name VARCHAR, ordinal INTEGER, column_name VARCHAR, "
                + "type VARCHAR, role VARCHAR, json_path VARCHAR, container VARCHAR, sql_name VARCHAR)");
        insert(statements, "docmirror_columns", columnRows);
        statements.add("CREATE TABLE docmirror_conflicts (container VARCHAR, table_name VARCHAR, json_path VARCHAR, "
                + "kept_type VARCHAR, seen_type VARCHAR, resolution VARCHAR, count BIGINT, sample_ids VARCHAR[])");
        insert(statements, "docmirror_conflicts", conflictRows);
        statements.add("CREATE VIEW docmirror_dead_letters AS " + (deadLetterSelects.isEmpty()
                ? "SELECT NULL::VARCHAR AS container, NULL::VARCHAR AS id, NULL::BIGINT AS _lsn, "
                        + "NULL::VARCHAR AS reason, NULL::VARCHAR AS raw_document WHERE false"
                : String.join(" UNION ALL ", deadLetterSelects)));
        // lag_seconds: how far behind the store the mirror was at its last commit (commit time minus the store
        // time of the newest change it holds); seconds_since_commit grows while the mirror is idle or stopped.
        statements.add("CREATE VIEW docmirror_freshness AS SELECT container, batch, committed_at, "
                + "last_change_at, round(epoch(committed_at) - epoch(last_change_at), 3) AS lag_seconds, "
                + "round(epoch(current_timestamp) - epoch(committed_at), 3) AS seconds_since_commit, "
                + "positions, history_sql_name FROM ("
                + (freshnessRows.isEmpty() ? "SELECT NULL::VARCHAR, NULL::BIGINT, NULL::TIMESTAMP, "
                        + "NULL::TIMESTAMP, NULL::MAP(VARCHAR, BIGINT), NULL::VARCHAR WHERE false"
                        : "VALUES " + String.join(", ", freshnessRows))
                + ") AS f(container, batch, committed_at, last_change_at, positions, history_sql_name)");
        statements.add("CREATE TABLE docmirror_errors (container VARCHAR, error VARCHAR)");
        insert(statements, "docmirror_errors", errorRows);
        return statements;
    }

    private static void insert(List<String> statements, String table, List<String> rows) {
        if (!rows.isEmpty()) {
            statements.add("INSERT INTO " + table + " VALUES " + String.join(", ", rows));
        }
    }

    /**
     * Where the version ends in its source: the newest LSN per feed range, and reading from Kafka the next offset per
     * topic-partition.
     */
    private static String positions(Map<String, Long> positions) {
        return positions.entrySet().stream()
                .map(entry -> literal(entry.getKey()) + ": " + entry.getValue())
                .collect(Collectors.joining(", ", "MAP {", "}::MAP(VARCHAR, BIGINT)"));
    }

    private static String timestamp(long epochMillis) {
        return epochMillis <= 0 ? "NULL::TIMESTAMP" : "make_timestamp(" + epochMillis * 1000 + ")";
    }

    private static String nullableLiteral(String text) {
        return text == null ? "NULL" : literal(text);
    }
}
