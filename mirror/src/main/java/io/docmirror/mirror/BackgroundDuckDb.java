package io.docmirror.mirror;

import io.docmirror.layout.TableView;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * An in-memory DuckDB for the mirror's own work on its files (compaction, rebuild): one thread and a bounded memory,
 * as it runs beside the daemon and the SQL endpoint.
 */
public final class BackgroundDuckDb {
    private BackgroundDuckDb() {
    }

    /** @param scratch where DuckDB spills what does not fit its memory */
    public static Connection connect(ScratchDirectory scratch) throws SQLException {
        Connection connection = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET threads = 1");
            statement.execute("SET memory_limit = '1GB'");
            statement.execute("SET temp_directory = " + TableView.literal(scratch.spill().toString()));
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        return connection;
    }
}
