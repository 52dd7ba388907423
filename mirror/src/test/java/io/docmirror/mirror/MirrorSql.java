package io.docmirror.mirror;

import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.TableView;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads a container's mirror back through DuckDB, as users will: views over the tables' newest snapshots, queried
 * with SQL. Rows come back as lists of column values, in the query's order. Public for the Spark backfill's tests.
 */
public final class MirrorSql implements AutoCloseable {
    private final Connection connection;

    private MirrorSql(Connection connection) {
        this.connection = connection;
    }

    public static MirrorSql open(Path mirrorDirectory, String container) throws SQLException {
        return open(mirrorDirectory, container, OptionalLong.empty());
    }

    static MirrorSql open(Path mirrorDirectory, String container, OptionalLong asOfEpochSeconds) throws SQLException {
        return open(ContainerSnapshot.read(mirrorDirectory, container).orElseThrow(() -> new IllegalStateException(
                "No mirror of " + container + " in " + mirrorDirectory)), asOfEpochSeconds);
    }

    /** Views over the tables of {@code snapshot}, as the SQL endpoint makes them. */
    static MirrorSql open(ContainerSnapshot snapshot, OptionalLong asOfEpochSeconds) throws SQLException {
        MirrorSql sql = new MirrorSql(DriverManager.getConnection("jdbc:duckdb:"));
        snapshot.loadDeletionVectors(sql.connection);
        String root = TableView.identifier(snapshot.root().name());
        for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
            sql.execute("CREATE VIEW " + TableView.identifier(table.name()) + " AS "
                    + snapshot.currentState(table.name(), root, asOfEpochSeconds));
        }
        sql.execute("CREATE VIEW " + TableView.identifier(snapshot.root().name() + "_history") + " AS "
                + snapshot.history(asOfEpochSeconds));
        sql.execute("CREATE VIEW dead_letters AS " + snapshot.deadLetters());
        return sql;
    }

    /** One query on the newest commit of a container's mirror. */
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

    public List<List<Object>> rows(String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
            ResultSetMetaData meta = result.getMetaData();
            List<List<Object>> rows = new ArrayList<>();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= meta.getColumnCount(); column++) {
                    Object value = result.getObject(column);
                    // An array's elements may be null, which List.of refuses.
                    row.add(value instanceof java.sql.Array array ? Arrays.asList((Object[]) array.getArray())
                            : value);
                }
                rows.add(row);
            }
            return rows;
        }
    }

    public Object value(String query) throws SQLException {
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
