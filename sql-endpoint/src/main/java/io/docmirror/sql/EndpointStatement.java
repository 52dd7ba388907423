package io.docmirror.sql;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A user's statement: a DuckDB statement on the connection's current {@link SqlSession}, with the endpoint's rules
 * applied to every query: the {@link StatementGuard}, the column limit (checked on a prepared statement's query
 * before it runs, on a plain statement's result before a row is read) and the query timeout (the query is
 * cancelled; the connection stays usable).
 */
final class EndpointStatement implements InvocationHandler {
    private final EndpointConnection connection;
    /** The query of a prepared statement; null for a plain statement. */
    private final String preparedSql;
    private Statement proxy;
    private SqlSession session;
    private Statement target;
    private int queryTimeoutSeconds;
    private ResultSet currentResult;
    private boolean closed;

    private EndpointStatement(EndpointConnection connection, String preparedSql) {
        this.connection = connection;
        this.preparedSql = preparedSql;
    }

    static Statement plain(EndpointConnection connection) throws SQLException {
        return open(new EndpointStatement(connection, null), Statement.class);
    }

    static PreparedStatement prepared(EndpointConnection connection, String sql) throws SQLException {
        return open(new EndpointStatement(connection, sql), PreparedStatement.class);
    }

    private static <T extends Statement> T open(EndpointStatement handler, Class<T> type) throws SQLException {
        handler.proxy = type.cast(Proxy.newProxyInstance(EndpointStatement.class.getClassLoader(),
                new Class<?>[] {type}, handler));
        handler.bind(handler.connection.session(), handler.preparedSql);
        handler.connection.opened(handler);
        return type.cast(handler.proxy);
    }

    /**
     * Makes the DuckDB statement on {@code next}, a prepared query when {@code sql} is given (checked by the guard
     * and against the column limit before it can run).
     */
    private void bind(SqlSession next, String sql) throws SQLException {
        Statement made;
        if (sql != null) {
            next.copy().guard().check(sql);
            PreparedStatement prepared = next.connection().prepareStatement(sql);
            try {
                checkColumns(prepared.getMetaData().getColumnCount());
            } catch (SQLException e) {
                prepared.close();
                throw e;
            }
            made = prepared;
        } else {
            made = next.connection().createStatement();
        }
        next.statementOpened();
        session = next;
        target = made;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (JdbcProxies.answersItself(method)) {
            return JdbcProxies.answer(proxy, method, args);
        }
        String name = method.getName();
        switch (name) {
            case "executeQuery":
            case "execute":
                return execute(method, args);
            case "executeUpdate":
            case "executeLargeUpdate":
            case "addBatch":
            case "executeBatch":
            case "executeLargeBatch":
                throw new SQLException("The docmirror SQL endpoint is read-only: " + name + " is not allowed",
                        "42501");
            case "setQueryTimeout":
                queryTimeoutSeconds = (Integer) args[0];
                return null;
            case "getQueryTimeout":
                return queryTimeoutSeconds;
            case "getResultSet":
                return currentResult;
            case "getConnection":
                return connection.proxy();
            case "isClosed":
                return closed;
            case "close":
                close();
                return null;
            case "toString":
                return preparedSql == null ? "docmirror statement" : "docmirror statement: " + preparedSql;
            default:
                break;
        }
        checkOpen();
        return JdbcProxies.invoke(target, method, args);
    }

    /**
     * Runs the query. A plain statement's {@code execute(sql)} and {@code executeQuery(sql)} run {@code sql} as a plain
     * DuckDB query once the guard allows it, and check the column limit on its result before any row is read:
     * preparing it first to check the columns would bind it twice, and DuckDB plans a query run at once better than
     * a prepared one (a point lookup on a view: 44 ms prepared and checked, 26 ms run at once; BENCHMARKS.md).
     */
    private Object execute(Method method, Object[] args) throws SQLException {
        checkOpen();
        boolean withSql = args != null && args.length > 0 && args[0] instanceof String;
        if (withSql && preparedSql != null) {
            throw new SQLException("A prepared statement runs its own query; use a Statement for another");
        }
        // Applies newer commits of the mirror to the copy first, when a look for them is due.
        connection.session();
        currentResult = null;
        Query<Boolean> run;
        if (withSql) {
            String sql = (String) args[0];
            session.copy().guard().check(sql);
            Statement plain = target;
            run = () -> plain.execute(sql);
        } else if (target instanceof PreparedStatement query) {
            run = query::execute;
        } else {
            throw new SQLException(method.getName() + " needs a query");
        }
        boolean asQuery = method.getName().equals("executeQuery");
        boolean hasResult = withTimeout(target, run);
        if (hasResult) {
            ResultSet result = target.getResultSet();
            if (withSql) {
                // A prepared statement's columns were checked when it was prepared (bind).
                try {
                    checkColumns(result.getMetaData().getColumnCount());
                } catch (SQLException e) {
                    result.close();
                    throw e;
                }
            }
            currentResult = Shielded.resultSet(result, connection.proxy(), proxy);
        } else if (asQuery) {
            throw new SQLException("executeQuery needs a query that returns rows");
        }
        return asQuery ? currentResult : hasResult;
    }

    /** A call on a DuckDB statement, which may fail with SQLException. */
    private interface Query<T> {
        T run() throws SQLException;
    }

    private <T> T withTimeout(Statement running, Query<T> query) throws SQLException {
        Duration timeout = connection.endpoint().config().queryTimeout();
        if (queryTimeoutSeconds > 0 && Duration.ofSeconds(queryTimeoutSeconds).compareTo(timeout) < 0) {
            timeout = Duration.ofSeconds(queryTimeoutSeconds);
        }
        AtomicBoolean fired = new AtomicBoolean();
        ScheduledFuture<?> timer = connection.endpoint().timeouts().schedule(() -> {
            fired.set(true);
            try {
                running.cancel();
            } catch (SQLException e) {
                throw new IllegalStateException("Cannot cancel a query past its timeout", e);
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            return query.run();
        } catch (SQLException e) {
            if (fired.get()) {
                throw new SQLTimeoutException("The query was cancelled: it ran longer than the query timeout of "
                        + timeout.toMillis() + " ms (" + SqlConfig.QUERY_TIMEOUT_MS.key()
                        + ", or the statement's setQueryTimeout)",
                        "57014", e);
            }
            throw e;
        } finally {
            timer.cancel(false);
        }
    }

    private void checkColumns(int columns) throws SQLException {
        int limit = connection.endpoint().config().columnLimit();
        if (columns > limit) {
            throw new SQLException("The query's result has " + columns + " columns, over the SQL endpoint's limit of "
                    + limit + " columns (" + SqlConfig.COLUMN_LIMIT.key() + "); select fewer columns", "54011");
        }
    }

    private void checkOpen() throws SQLException {
        if (closed) {
            throw new SQLException("The statement is closed");
        }
    }

    void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        connection.closed(this);
        try {
            target.close();
        } finally {
            session.statementClosed();
        }
    }
}
