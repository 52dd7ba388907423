package io.docmirror.sql;

import org.duckdb.DuckDBConnection;

import java.sql.SQLException;

/**
 * A user connection's DuckDB connection to the endpoint's copy, with the number of the user's statements that still
 * use it: once the user closes the connection, this one closes when its last statement does.
 */
final class SqlSession {
    private final ServingCopy copy;
    private final DuckDBConnection connection;
    private int statements;
    private boolean closing;
    private boolean closed;

    private SqlSession(ServingCopy copy, DuckDBConnection connection) {
        this.copy = copy;
        this.connection = connection;
    }

    static SqlSession open(ServingCopy copy) throws SQLException {
        return new SqlSession(copy, copy.connect());
    }

    ServingCopy copy() {
        return copy;
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

    /** The user closed the connection: this one closes once its statements are closed. */
    synchronized void closeAfterStatements() throws SQLException {
        closing = true;
        closeIfDone();
    }

    private void closeIfDone() throws SQLException {
        if (closed || !closing || statements > 0) {
            return;
        }
        closed = true;
        try {
            connection.close();
        } finally {
            copy.release();
        }
    }
}
