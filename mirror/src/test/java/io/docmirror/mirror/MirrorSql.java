package io.docmirror.mirror;

import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.mirror.manifest.ViewDefinitions;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads a container's mirror back through DuckDB, as users will: views over the newest manifest version, queried
 * with SQL. Rows come back as lists of column values, in the query's order.
 */
final class MirrorSql implements AutoCloseable {
    private final Connection connection;

    private MirrorSql(Connection connection) {
        this.connection = connection;
    }

    static MirrorSql open(Path mirrorDirectory, String container) throws SQLException {
        return open(mirrorDirectory, container, OptionalLong.empty());
    }

    static MirrorSql open(Path mirrorDirectory, String container, OptionalLong asOfEpochSeconds) throws SQLException {
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        Optional<Manifest> manifest = new ManifestStore(directory).latest();
        if (manifest.isPresent()) {
            return open(directory, manifest.get(), asOfEpochSeconds);
        }
        return open(ContainerSnapshot.read(mirrorDirectory, container).orElseThrow(() -> new IllegalStateException(
                "No mirror of " + container + " in " + mirrorDirectory + ", in either format")));
    }

    /** Views over a container kept as Iceberg tables, as the SQL endpoint makes them. */
    private static MirrorSql open(ContainerSnapshot snapshot) throws SQLException {
        MirrorSql sql = new MirrorSql(DriverManager.getConnection("jdbc:duckdb:"));
        snapshot.loadDeletedRows(sql.connection);
        String root = ViewDefinitions.identifier(snapshot.root().name());
        for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
            sql.execute("CREATE VIEW " + ViewDefinitions.identifier(table.name()) + " AS "
                    + snapshot.currentState(table.name(), root));
        }
        sql.execute("CREATE VIEW " + ViewDefinitions.identifier(snapshot.root().name() + "_history") + " AS "
                + snapshot.history());
        sql.execute("CREATE VIEW dead_letters AS " + snapshot.deadLetters());
        return sql;
    }

    /** Views over one given version of a container's mirror, not necessarily the newest. */
    static MirrorSql open(Path mirrorDirectory, String container, Manifest manifest) throws SQLException {
        return open(MirrorLayout.containerDirectory(mirrorDirectory, container), manifest, OptionalLong.empty());
    }

    private static MirrorSql open(Path directory, Manifest manifest, OptionalLong asOfEpochSeconds)
            throws SQLException {
        MirrorSql sql = new MirrorSql(DriverManager.getConnection("jdbc:duckdb:"));
        ViewDefinitions views = new ViewDefinitions(manifest, directory, asOfEpochSeconds);
        String root = ViewDefinitions.identifier(manifest.root().name());
        for (TableEntry table : manifest.tables()) {
            sql.execute("CREATE VIEW " + ViewDefinitions.identifier(table.name()) + " AS "
                    + views.currentState(table, root));
        }
        sql.execute("CREATE VIEW " + ViewDefinitions.identifier(manifest.root().name() + "_history") + " AS "
                + views.history());
        sql.execute("CREATE VIEW dead_letters AS " + views.deadLetters());
        return sql;
    }

    /** One query on the newest version of a container's mirror. */
    static List<List<Object>> query(Path mirrorDirectory, String container, String query) throws SQLException {
        try (MirrorSql sql = open(mirrorDirectory, container)) {
            return sql.rows(query);
        }
    }

    void execute(String statement) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(statement);
        }
    }

    List<List<Object>> rows(String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
            ResultSetMetaData meta = result.getMetaData();
            List<List<Object>> rows = new ArrayList<>();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= meta.getColumnCount(); column++) {
                    Object value = result.getObject(column);
                    row.add(value instanceof java.sql.Array array ? List.of((Object[]) array.getArray()) : value);
                }
                rows.add(row);
            }
            return rows;
        }
    }

    Object value(String query) throws SQLException {
        List<List<Object>> rows = rows(query);
        if (rows.size() != 1 || rows.get(0).size() != 1) {
            throw new IllegalStateException("Expected one value from " + query + ", got " + rows);
        }
        return rows.get(0).get(0);
    }

    List<String> columnNames(String table) throws SQLException {
        List<String> names = new ArrayList<>();
        for (List<Object> row : rows("SELECT column_name FROM information_schema.columns WHERE table_name = '"
                + table.replace("'", "''") + "' ORDER BY ordinal_position")) {
            names.add((String) row.get(0));
        }
        return names;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
