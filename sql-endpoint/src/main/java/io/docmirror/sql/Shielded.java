package io.docmirror.sql;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A DuckDB JDBC object handed to a user without a way back to DuckDB's own connection or statements, which would
 * skip the {@link StatementGuard}: {@code getConnection()} and {@code getStatement()} answer the endpoint's objects,
 * result sets it returns are shielded the same way, and {@code unwrap} goes no further than the shield.
 */
final class Shielded implements InvocationHandler {
    private final Object target;
    private final Connection connection;
    private final Statement statement;

    private Shielded(Object target, Connection connection, Statement statement) {
        this.target = target;
        this.connection = connection;
        this.statement = statement;
    }

    /** @param statement what {@code getStatement()} answers; null for metadata result sets */
    static ResultSet resultSet(ResultSet target, Connection connection, Statement statement) {
        return target == null ? null : shield(ResultSet.class, target, connection, statement);
    }

    /**
     * The DuckDB result set behind one the endpoint returned; for the endpoint's own use (it never reaches a user).
     *
     * @throws SQLException when {@code shielded} did not come from the endpoint
     */
    static ResultSet target(ResultSet shielded) throws SQLException {
        if (Proxy.isProxyClass(shielded.getClass())
                && Proxy.getInvocationHandler(shielded) instanceof Shielded handler
                && handler.target instanceof ResultSet target) {
            return target;
        }
        throw new SQLException("Not a result set of the docmirror SQL endpoint: " + shielded.getClass().getName());
    }

    static DatabaseMetaData metaData(DatabaseMetaData target, Connection connection) {
        return shield(DatabaseMetaData.class, target, connection, null);
    }

    private static <T> T shield(Class<T> type, T target, Connection connection, Statement statement) {
        return type.cast(Proxy.newProxyInstance(Shielded.class.getClassLoader(), new Class<?>[] {type},
                new Shielded(target, connection, statement)));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (JdbcProxies.answersItself(method)) {
            return JdbcProxies.answer(proxy, method, args);
        }
        switch (method.getName()) {
            case "getConnection":
                return connection;
            case "getStatement":
                return statement;
            default:
                break;
        }
        Object result = JdbcProxies.invoke(target, method, args);
        return result instanceof ResultSet resultSet ? resultSet(resultSet, connection, null) : result;
    }
}
