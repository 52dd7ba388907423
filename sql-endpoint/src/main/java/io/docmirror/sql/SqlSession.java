package io.docmirror.sql;

import org.duckdb.DuckDBConnection;

import java.sql.SQLException;

/**
 * A user connection's DuckDB connection to one catalog generation, with the number of the user's statements that
 * still use it. When a newer generation opens, the user's next statements move to it; this one closes when its
 * last statement does.
 */
final class SqlSession {
    private final SqlGeneration generation;
    private final DuckDBConnection connection;
    private int statements;
    private boolean superseded;
    private boolean closed;

    private SqlSession(SqlGeneration generation, DuckDBConnection connection) {
        this.generation = generation;
        this.connection = connection;
    }

    static SqlSession open(SqlGeneration generation) throws SQLException {
        return new SqlSession(generation, generation.connect());
    }

    SqlGeneration generation() {
        return generation;
    }

    DuckDBConnection connection() {
        return connection;
    }

    synchronized void statementOpened() {
        statements++;
    }

    synchronized void statementClosed() throws SQLException {
        statements--;
        closeIfDone();
    }

    /** A newer session takes over: this one closes once its statements are closed. */
    synchronized void supersede() throws SQLException {
        superseded = true;
        closeIfDone();
    }

    private void closeIfDone() throws SQLException {
        if (closed || !superseded || statements > 0) {
            return;
        }
        closed = true;
        try {
            connection.close();
        } finally {
            generation.release();
        }
    }
}
