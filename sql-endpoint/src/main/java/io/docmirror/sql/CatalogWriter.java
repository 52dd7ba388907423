package io.docmirror.sql;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.mirror.manifest.Checkpoint;
import io.docmirror.mirror.manifest.ColumnEntry;
import io.docmirror.mirror.manifest.ConflictEntry;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.mirror.manifest.ViewDefinitions;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import static io.docmirror.mirror.manifest.ViewDefinitions.identifier;
import static io.docmirror.mirror.manifest.ViewDefinitions.literal;

/**
 * Writes one generation of the SQL catalog: a DuckDB database file with a view per mirrored table (current state),
 * a {@code <container>_history} view per container, and the catalog of DESIGN.md ({@code docmirror_tables},
 * {@code docmirror_columns}, {@code docmirror_conflicts}, {@code docmirror_dead_letters}, {@code docmirror_freshness}).
 * The file holds no data: the views read the Parquet files that the snapshot's manifests list.
 */
final class CatalogWriter {
    /** The catalog's own relations (views, and tables for what is fixed per generation). */
    static final List<String> CATALOG_VIEWS = List.of("docmirror_tables", "docmirror_columns",
            "docmirror_conflicts", "docmirror_dead_letters", "docmirror_freshness");

    private final MirrorSnapshot snapshot;
    private final List<String> statements = new ArrayList<>();
    /** Which container each view belongs to, so that a name two containers both want is reported. */
    private final Map<String, String> viewOwners = new HashMap<>();

    private CatalogWriter(MirrorSnapshot snapshot) {
        this.snapshot = snapshot;
        CATALOG_VIEWS.forEach(name -> viewOwners.put(name, "the catalog"));
    }

    /**
     * @throws IllegalStateException when two containers' tables would share a view name
     */
    static void write(MirrorSnapshot snapshot, Path databaseFile) throws SQLException {
        CatalogWriter writer = new CatalogWriter(snapshot);
        writer.plan();
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:" + databaseFile);
                Statement statement = connection.createStatement()) {
            statement.execute("BEGIN TRANSACTION");
            for (String sql : writer.statements) {
                statement.execute(sql);
            }
            statement.execute("COMMIT");
            statement.execute("CHECKPOINT");
        }
    }

    private void plan() {
        List<String> tableRows = new ArrayList<>();
        List<String> columnRows = new ArrayList<>();
        List<String> conflictRows = new ArrayList<>();
        List<String> deadLetterSelects = new ArrayList<>();
        List<String> freshnessRows = new ArrayList<>();
        snapshot.manifests().forEach((container, manifest) -> {
            ViewDefinitions views = new ViewDefinitions(manifest, snapshot.containerDirectory(container),
                    OptionalLong.empty());
            String root = manifest.root().name();
            for (TableEntry table : manifest.tables()) {
                createView(container, table.name(), views.currentState(table, identifier(root)));
                tableRows.add("SELECT " + literal(table.name()) + ", " + literal(container) + ", "
                        + nullableLiteral(table.parent()) + ", " + literal(table.jsonPath()) + ", "
                        + "(SELECT count(*) FROM " + identifier(table.name()) + "), " + table.columns().size()
                        + ", " + table.files().size());
                for (int index = 0; index < table.columns().size(); index++) {
                    ColumnEntry column = table.columns().get(index);
                    columnRows.add("(" + literal(table.name()) + ", " + (index + 1) + ", " + literal(column.name())
                            + ", " + literal(ViewDefinitions.sqlType(column)) + ", "
                            + literal(column.role()) + ", " + literal(column.jsonPath()) + ")");
                }
            }
            createView(container, root + "_history", views.history());
            for (ConflictEntry conflict : manifest.conflicts()) {
                conflictRows.add("(" + literal(container) + ", " + literal(conflict.table()) + ", "
                        + literal(conflict.jsonPath()) + ", " + nullableLiteral(conflict.keptType()) + ", "
                        + nullableLiteral(conflict.seenType()) + ", " + literal(conflict.resolution()) + ", "
                        + conflict.count() + ", " + conflict.sampleIds().stream().map(ViewDefinitions::literal)
                        .collect(Collectors.joining(", ", "[", "]::VARCHAR[]")) + ")");
            }
            deadLetterSelects.add(views.deadLetters());
            freshnessRows.add("(" + literal(container) + ", " + manifest.version() + "::BIGINT, "
                    + timestamp(manifest.committedAt()) + ", " + timestamp(manifest.lastEventTs()) + ", "
                    + positions(manifest.checkpoint()) + ")");
        });

        statements.add("CREATE VIEW docmirror_tables AS SELECT * FROM ("
                + (tableRows.isEmpty() ? "SELECT NULL, NULL, NULL, NULL, NULL::BIGINT, NULL::INTEGER, "
                        + "NULL::INTEGER WHERE false" : String.join(" UNION ALL ", tableRows))
                + ") AS t(table_name, container, parent_table, json_path, \"rows\", \"columns\", files)");
        statements.add("CREATE TABLE docmirror_columns (table_name VARCHAR, ordinal INTEGER, column_name VARCHAR, "
                + "type VARCHAR, role VARCHAR, json_path VARCHAR)");
        insert("docmirror_columns", columnRows);
        statements.add("CREATE TABLE docmirror_conflicts (container VARCHAR, table_name VARCHAR, json_path VARCHAR, "
                + "kept_type VARCHAR, seen_type VARCHAR, resolution VARCHAR, count BIGINT, sample_ids VARCHAR[])");
        insert("docmirror_conflicts", conflictRows);
        statements.add("CREATE VIEW docmirror_dead_letters AS " + (deadLetterSelects.isEmpty()
                ? "SELECT NULL::VARCHAR AS container, NULL::VARCHAR AS id, NULL::BIGINT AS _lsn, "
                        + "NULL::VARCHAR AS reason, NULL::VARCHAR AS raw_document WHERE false"
                : String.join(" UNION ALL ", deadLetterSelects)));
        // lag_seconds: how far behind the store the mirror was at its last commit (commit time minus the store
        // time of the newest change it holds); seconds_since_commit grows while the mirror is idle or stopped.
        statements.add("CREATE VIEW docmirror_freshness AS SELECT container, manifest_version, committed_at, "
                + "last_change_at, round(epoch(committed_at) - epoch(last_change_at), 3) AS lag_seconds, "
                + "round(epoch(current_timestamp) - epoch(committed_at), 3) AS seconds_since_commit, "
                + "positions FROM ("
                + (freshnessRows.isEmpty() ? "SELECT NULL::VARCHAR, NULL::BIGINT, NULL::TIMESTAMP, "
                        + "NULL::TIMESTAMP, NULL::MAP(VARCHAR, BIGINT) WHERE false"
                        : "VALUES " + String.join(", ", freshnessRows))
                + ") AS f(container, manifest_version, committed_at, last_change_at, positions)");
    }

    private void createView(String container, String name, String query) {
        String owner = viewOwners.putIfAbsent(name, container);
        if (owner != null) {
            throw new IllegalStateException("Cannot serve table " + name + " of container " + container
                    + " in SQL: " + owner + " already has a view of that name; rename one of the containers "
                    + "or map the array to another table name (flatten.overrides)");
        }
        statements.add("CREATE VIEW " + identifier(name) + " AS " + query);
    }

    private void insert(String table, List<String> rows) {
        if (!rows.isEmpty()) {
            statements.add("INSERT INTO " + table + " VALUES " + String.join(", ", rows));
        }
    }

    /**
     * Where the version ends in its source: the newest LSN per feed range, and reading from Kafka the next offset per
     * topic-partition.
     */
    private static String positions(Checkpoint checkpoint) {
        Map<String, Long> positions = new java.util.TreeMap<>(checkpoint.kafkaOffsets());
        if (checkpoint.reached() != null) {
            ContinuationToken.decode(checkpoint.reached()).positions()
                    .forEach((range, lsn) -> positions.put("feed range " + range, lsn));
        }
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
