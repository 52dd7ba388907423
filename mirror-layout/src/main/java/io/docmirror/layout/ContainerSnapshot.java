package io.docmirror.layout;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;

/**
 * One container's Iceberg tables at the snapshots one read of the catalog's pointers found
 * ({@link CatalogReader}), and how DuckDB reads them: each table's data files by field id, without the rows its
 * deletion vectors delete ({@link TableView}), which {@link #loadDeletionVectors} puts into {@value #DELETION_VECTORS}
 * first.
 * Under an analytical TTL, the rows of documents whose {@code _ts} is older are left out too: the mirror deletes them
 * from the tables only at its next {@code ttl} commit, and until then the views leave them out themselves.
 */
public final class ContainerSnapshot {
    /** The deletion vectors, a row a data file, of every container loaded into one DuckDB database. */
    public static final String DELETION_VECTORS = "docmirror_internal.deletion_vectors";
    /** The history of a container mirrored without one: its columns, no row. */
    public static final String NO_HISTORY = "SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS _pk, NULL::BIGINT AS _lsn, "
            + "NULL::BIGINT AS _ts, NULL::TIMESTAMP AS _commit_time, NULL::VARCHAR AS operation, NULL::BOOLEAN AS "
            + "ttl_expired, NULL::VARCHAR AS document WHERE false";
    /** The dead letters of a container that refused no document: their columns, no row. */
    public static final String NO_DEAD_LETTERS = "SELECT NULL::VARCHAR AS container, NULL::VARCHAR AS id, "
            + "NULL::BIGINT AS _lsn, NULL::VARCHAR AS reason, NULL::VARCHAR AS raw_document WHERE false";

    private final String container;
    private final Table root;
    private final Snapshot rootSnapshot;
    private final List<FlattenedTable> flattened = new ArrayList<>();
    private final Optional<TableView> history;
    private final Optional<TableView> deadLetters;
    private final Optional<Table> deadLettersTable;

    /** A flattened table under its name in the namespace, and the view of its current snapshot. */
    public record FlattenedTable(String name, Table table, TableView view) {
        /** The table whose rows this table's rows belong to; null for the root. */
        public String parent() {
            return table.properties().get(MirrorProperties.PARENT);
        }

        public boolean isRoot() {
            return parent() == null;
        }
    }

    private ContainerSnapshot(String container, Map.Entry<String, Table> root, Map<String, Table> children,
            Optional<Table> history, Optional<Table> deadLetters, ExecutorService planner) {
        this.container = container;
        this.root = root.getValue();
        this.rootSnapshot = this.root.currentSnapshot();
        flattened.add(new FlattenedTable(root.getKey(), root.getValue(), TableView.current(root.getValue(), planner)));
        new TreeMap<>(children).forEach((name, child) -> flattened.add(new FlattenedTable(name, child,
                TableView.current(child, planner))));
        this.history = history.map(table -> TableView.current(table, planner));
        this.deadLetters = deadLetters.map(table -> TableView.current(table, planner));
        this.deadLettersTable = deadLetters.filter(table -> table.currentSnapshot() != null);
    }

    /**
     * The container whose tables are {@code tables} (by name, one namespace; tables the mirror did not make are left
     * out); empty while it has no committed root table. Scans plan with {@code planner}'s threads
     * ({@link IcebergWorkers}).
     */
    public static Optional<ContainerSnapshot> of(String container, Map<String, Table> tables,
            ExecutorService planner) {
        Map.Entry<String, Table> root = null;
        Table history = null;
        Table deadLetters = null;
        Map<String, Table> children = new TreeMap<>();
        for (Map.Entry<String, Table> entry : tables.entrySet()) {
            switch (entry.getValue().properties().getOrDefault(MirrorProperties.TABLE_ROLE, "")) {
                case MirrorProperties.ROOT -> root = entry;
                case MirrorProperties.CHILD -> children.put(entry.getKey(), entry.getValue());
                case MirrorProperties.HISTORY -> history = entry.getValue();
                case MirrorProperties.DEAD_LETTERS -> deadLetters = entry.getValue();
                default -> {
                    // Not one of the mirror's tables.
                }
            }
        }
        if (root == null || root.getValue().currentSnapshot() == null) {
            return Optional.empty();
        }
        return Optional.of(new ContainerSnapshot(container, root, children, Optional.ofNullable(history),
                Optional.ofNullable(deadLetters), planner));
    }

    /** The container's tables in the embedded catalog of {@code mirrorDirectory} now; empty when it has none. */
    public static Optional<ContainerSnapshot> read(Path mirrorDirectory, String container) {
        return read(CatalogSettings.embedded(mirrorDirectory), container);
    }

    /** The container's tables in {@code catalog} now, at one batch; empty when it has none. */
    public static Optional<ContainerSnapshot> read(CatalogReader catalog, String container) {
        return of(container, catalog.pointers(container).tables(MirrorTables.namespace(container)),
                catalog.workers());
    }

    /** The container's tables in the catalog {@code settings} describe, now, at one batch; empty when it has none. */
    public static Optional<ContainerSnapshot> read(CatalogSettings settings, String container) {
        try (CatalogReader catalog = CatalogReader.open(settings)) {
            return read(catalog, container);
        }
    }

    public String container() {
        return container;
    }

    /** The flattened tables, the root first. */
    public List<FlattenedTable> tables() {
        return List.copyOf(flattened);
    }

    public FlattenedTable root() {
        return flattened.get(0);
    }

    /** The root table's current snapshot: the mirror's last commit, with its summary ({@link MirrorSummary}). */
    public Snapshot rootSnapshot() {
        return rootSnapshot;
    }

    /** A property of the root table ({@link MirrorProperties}). */
    public Optional<String> rootProperty(String key) {
        return Optional.ofNullable(root.properties().get(key));
    }

    /** The data files of every table that cannot be read as recorded ({@link TableView#damagedFiles()}). */
    public List<String> damagedFiles() {
        List<String> damaged = new ArrayList<>();
        flattened.forEach(table -> damaged.addAll(table.view().damagedFiles()));
        history.ifPresent(view -> damaged.addAll(view.damagedFiles()));
        deadLetters.ifPresent(view -> damaged.addAll(view.damagedFiles()));
        return damaged;
    }

    /** How many documents could not be mirrored. */
    public long deadLetterCount() {
        return deadLettersTable.map(table -> Long.parseLong(table.currentSnapshot().summary()
                .getOrDefault("total-records", "0"))).orElse(0L);
    }

    /** The container's analytical TTL in seconds; -1: forever. */
    public long analyticalTtl() {
        return Long.parseLong(root.properties().getOrDefault(MirrorProperties.ANALYTICAL_TTL, "-1"));
    }

    /**
     * Puts the deletion vectors into {@value #DELETION_VECTORS} of a DuckDB database: those of the flattened tables
     * and of the history (the analytical TTL deletes history entries). A database holds one snapshot of a container:
     * loading it twice fails on the table's key.
     */
    public void loadDeletionVectors(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS docmirror_internal");
            statement.execute("CREATE TABLE IF NOT EXISTS " + DELETION_VECTORS
                    + " (file VARCHAR PRIMARY KEY, deleted BIT NOT NULL)");
        }
        List<TableView> views = new ArrayList<>();
        flattened.forEach(table -> views.add(table.view()));
        history.ifPresent(views::add);
        deadLetters.ifPresent(views::add);
        for (TableView view : views) {
            view.insertVectors(connection, DELETION_VECTORS);
        }
    }

    /**
     * The current rows of one of {@link #tables()}: what its deletion vectors leave, and under an analytical TTL the
     * rows of documents within it (a child row through its document's root row).
     *
     * @param rootRelation the root table's current rows (a view's name), which a child table joins to
     */
    public String currentState(String table, String rootRelation) {
        return currentState(table, rootRelation, OptionalLong.empty());
    }

    /**
     * {@link #currentState(String, String)} with the analytical TTL counted back from {@code asOfEpochSeconds}
     * (empty: now), so that a comparison with the store leaves out the same rows.
     */
    public String currentState(String table, String rootRelation, OptionalLong asOfEpochSeconds) {
        FlattenedTable flat = flattened.stream().filter(candidate -> candidate.name().equals(table)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Container " + container + " has no table " + table));
        return withinAnalyticalTtl(flat, flat.view().select(DELETION_VECTORS), rootRelation, asOfEpochSeconds);
    }

    /**
     * Of {@code rows}, the rows of one of {@link #tables()}, those of documents within the analytical TTL counted
     * back from {@code asOfEpochSeconds} (empty: now); a child row through its document's root row.
     *
     * @param rootRelation the root table's current rows (a view's name), which a child table joins to
     */
    public String withinAnalyticalTtl(FlattenedTable table, String rows, String rootRelation,
            OptionalLong asOfEpochSeconds) {
        long ttl = analyticalTtl();
        if (ttl < 0) {
            return rows;
        }
        return table.isRoot()
                ? "SELECT * FROM (" + rows + ") WHERE _ts > " + now(asOfEpochSeconds) + " - " + ttl
                : "SELECT c.* FROM (" + rows + ") AS c SEMI JOIN " + rootRelation
                        + " AS r ON c._id = r.id AND c._pk = r._pk";
    }

    /** Every change: {@code id, _pk, _lsn, _ts, _commit_time, operation, ttl_expired, document}. */
    public String history() {
        return history(OptionalLong.empty());
    }

    /** {@link #history()} with the analytical TTL counted back from {@code asOfEpochSeconds} (empty: now). */
    public String history(OptionalLong asOfEpochSeconds) {
        return history.map(view -> historyWithinAnalyticalTtl(view.select(DELETION_VECTORS), asOfEpochSeconds))
                .orElse(NO_HISTORY);
    }

    /** Of {@code rows}, rows of the history table, those within the analytical TTL (now). */
    public String historyWithinAnalyticalTtl(String rows) {
        return historyWithinAnalyticalTtl(rows, OptionalLong.empty());
    }

    private String historyWithinAnalyticalTtl(String rows, OptionalLong asOfEpochSeconds) {
        long ttl = analyticalTtl();
        return ttl < 0 ? rows : "SELECT * FROM (" + rows + ") WHERE _ts > " + now(asOfEpochSeconds) + " - " + ttl;
    }

    /** The history table's view; empty for a container mirrored without one. */
    public Optional<TableView> historyView() {
        return history;
    }

    /** The dead-letter table's view; empty while no document was refused. */
    public Optional<TableView> deadLettersView() {
        return deadLetters;
    }

    private static String now(OptionalLong asOfEpochSeconds) {
        return asOfEpochSeconds.isPresent() ? Long.toString(asOfEpochSeconds.getAsLong()) : "epoch(current_timestamp)";
    }

    /** Documents that could not be mirrored: {@code container, id, _lsn, reason, raw_document}. */
    public String deadLetters() {
        return deadLetters.map(view -> view.select(DELETION_VECTORS)).orElse(NO_DEAD_LETTERS);
    }
}
