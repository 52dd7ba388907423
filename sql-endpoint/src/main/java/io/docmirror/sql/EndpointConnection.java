package io.docmirror.sql;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A user's JDBC connection to the endpoint: a DuckDB connection to its copy ({@link SqlSession}). Everything reads
 * in auto-commit mode, each query a snapshot of the copy.
 */
final class EndpointConnection implements InvocationHandler {
    private final SqlEndpoint endpoint;
    private final Runnable onClose;
    private final Set<EndpointStatement> statements = Collections.newSetFromMap(new IdentityHashMap<>());
    private Connection proxy;
    private SqlSession session;
    private boolean closed;

    private EndpointConnection(SqlEndpoint endpoint, Runnable onClose) {
        this.endpoint = endpoint;
        this.onClose = onClose;
    }

    static Connection open(SqlEndpoint endpoint) throws SQLException {
        return open(endpoint, () -> { });
    }

    /** @param onClose runs after the connection closes (the JDBC driver closes the endpoint it opened for it) */
    static Connection open(SqlEndpoint endpoint, Runnable onClose) throws SQLException {
        EndpointConnection handler = new EndpointConnection(endpoint, onClose);
        handler.proxy = (Connection) Proxy.newProxyInstance(EndpointConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, handler);
        handler.session();
        return handler.proxy;
    }

    SqlEndpoint endpoint() {
        return endpoint;
    }

    Connection proxy() {
        return proxy;
    }

    /** The session a new query runs on, after the endpoint applied newer commits when a look for them was due. */
    synchronized SqlSession session() throws SQLException {
        if (closed) {
            throw new SQLException("The connection is closed");
        }
        ServingCopy copy = endpoint.copy();
        if (session == null) {
            session = SqlSession.open(copy);
        }
        return session;
    }

    synchronized void opened(EndpointStatement statement) {
        statements.add(statement);
    }

    synchronized void closed(EndpointStatement statement) {
        statements.remove(statement);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (JdbcProxies.answersItself(method)) {
            return JdbcProxies.answer(proxy, method, args);
        }
        switch (method.getName()) {
            case "createStatement":
                return EndpointStatement.plain(this);
            case "prepareStatement":
                return EndpointStatement.prepared(this, (String) args[0]);
            case "prepareCall":
                throw new SQLFeatureNotSupportedException("The docmirror SQL endpoint has no stored procedures");
            case "getMetaData":
                return Shielded.metaData(session().connection().getMetaData(), this.proxy);
            case "setAutoCommit":
                if (!(Boolean) args[0]) {
                    throw new SQLFeatureNotSupportedException("The docmirror SQL endpoint runs every query in "
                            + "auto-commit mode, each on one committed version of the mirror");
                }
                return null;
            case "getAutoCommit":
            case "isReadOnly":
                return true;
            case "setReadOnly":
            case "commit":
            case "rollback":
                return null;
            case "isClosed":
                return isClosed();
            case "isValid":
                return !isClosed();
            case "close":
                close();
                return null;
            case "toString":
                return "docmirror SQL connection";
            default:
                return JdbcProxies.invoke(session().connection(), method, args);
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    /** Closes the statements still open, as JDBC asks, then lets go of the session. */
    private void close() throws SQLException {
        SqlSession last;
        List<EndpointStatement> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            last = session;
            session = null;
            open = List.copyOf(statements);
        }
        try {
            for (EndpointStatement statement : open) {
                statement.close();
            }
            if (last != null) {
                last.closeAfterStatements();
            }
        } finally {
            onClose.run();
        }
    }
}
