package io.docmirror.sql;

import io.docmirror.layout.TableView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.docmirror.layout.TableView.identifier;
import static io.docmirror.layout.TableView.literal;


/**
 * Writes one generation of the SQL catalog: a DuckDB database file with a view per mirrored table (current state),
 * a {@code <container>_history} view per container, each under the name {@link SqlNames} gives it, and the catalog
 * ({@code docmirror_tables}, {@code docmirror_columns}, {@code docmirror_conflicts}, {@code docmirror_dead_letters},
 * {@code docmirror_freshness}, {@code docmirror_errors}). The file holds no data: the views read the Parquet files
 * that the snapshot lists.
 */
final class CatalogWriter {
    /** The catalog's own relations (views, and tables for what is fixed per generation). */
    static final List<String> CATALOG_VIEWS = List.of("docmirror_tables", "docmirror_columns",
            "docmirror_conflicts", "docmirror_dead_letters", "docmirror_freshness", "docmirror_errors");
    private static final Logger log = LoggerFactory.getLogger(CatalogWriter.class);

    private final SqlNames names;
    private final List<String> tableRows = new ArrayList<>();
    private final List<String> columnRows = new ArrayList<>();
    private final List<String> conflictRows = new ArrayList<>();
    private final List<String> deadLetterSelects = new ArrayList<>();
    private final List<String> freshnessRows = new ArrayList<>();
    private final List<String> errorRows = new ArrayList<>();

    private CatalogWriter(SqlNames names) {
        this.names = names;
    }

    /**
     * Creates every container's views, then the catalog. A container whose views cannot be created (a Parquet file
     * that cannot be read, say) is left out and listed in {@code docmirror_errors}, so that every other container
     * still answers.
     */
    static void write(MirrorSnapshot snapshot, Path databaseFile) throws SQLException {
        CatalogWriter writer = new CatalogWriter(SqlNames.assign(snapshot.containers(), CATALOG_VIEWS));
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:" + databaseFile);
                Statement statement = connection.createStatement()) {
            for (Map.Entry<String, MirroredContainer> container : snapshot.containers().entrySet()) {
                writer.serve(connection, container.getKey(), container.getValue());
            }
            statement.execute("BEGIN TRANSACTION");
            for (String sql : writer.catalogStatements()) {
                statement.execute(sql);
            }
            statement.execute("COMMIT");
            statement.execute("CHECKPOINT");
        }
    }

    /** Creates one container's views in one transaction, and its rows of the catalog; or records why it cannot. */
    private void serve(Connection connection, String container, MirroredContainer mirrored) throws SQLException {
        List<MirroredContainer.Table> tables = mirrored.tables();
        String root = names.table(container, tables.get(0).name());
        freshnessRows.add("(" + literal(container) + ", " + mirrored.version() + "::BIGINT, "
                + timestamp(mirrored.committedAt()) + ", " + timestamp(mirrored.lastEventTs()) + ", "
                + positions(mirrored.positions()) + ", " + literal(names.history(container)) + ")");
        try (Statement statement = connection.createStatement()) {
            statement.execute("BEGIN TRANSACTION");
            List<String> damaged = mirrored.damagedFiles();
            if (!damaged.isEmpty()) {
                throw new SQLException("Damaged files: " + String.join("; ", damaged));
            }
            mirrored.prepare(connection);
            for (MirroredContainer.Table table : tables) {
                statement.execute("CREATE VIEW " + identifier(names.table(container, table.name())) + " AS "
                        + mirrored.currentState(table, identifier(root)));
            }
            statement.execute("CREATE VIEW " + identifier(names.history(container)) + " AS " + mirrored.history());
            // Bound here, so that a dead-letter file that cannot be read fails this container, not the catalog.
            statement.execute("CREATE TEMP VIEW dead_letters_check AS " + mirrored.deadLetters());
            statement.execute("DROP VIEW dead_letters_check");
            statement.execute("COMMIT");
        } catch (SQLException e) {
            // DuckDB's driver closes a statement that failed: roll back on a new one.
            try (Statement rollback = connection.createStatement()) {
                rollback.execute("ROLLBACK");
            }
            log.warn("Container {} is left out of the SQL catalog: {}", container, e.getMessage(), e);
            errorRows.add("(" + literal(container) + ", " + literal(e.getMessage() + " (when a file is damaged, "
                    + "`docmirror repair --container " + container + "` mends it)") + ")");
            return;
        }
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
        deadLetterSelects.add(mirrored.deadLetters());
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
