package io.docmirror.sql;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.SQLException;

/** What the endpoint's JDBC proxies share: calling the DuckDB object behind them, and refusing to unwrap past them. */
final class JdbcProxies {
    private JdbcProxies() {
    }

    /**
     * Calls a JDBC {@code method} on {@code target}, throwing what it threw rather than a reflection wrapper (JDBC
     * methods throw only SQLException and unchecked exceptions).
     */
    static Object invoke(Object target, Method method, Object[] args) throws SQLException {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException sqlException) {
                throw sqlException;
            }
            if (cause instanceof RuntimeException runtimeException) {
                throw runtimeException;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new SQLException(method.getName() + " failed", cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot call " + method, e);
        }
    }

    /** Whether {@code method} is one that every endpoint proxy answers itself, the same way ({@link #answer}). */
    static boolean answersItself(Method method) {
        return switch (method.getName()) {
            case "unwrap", "isWrapperFor", "equals", "hashCode" -> true;
            default -> false;
        };
    }

    /** Unwrapping goes no further than the proxy; equality is the proxy's identity. */
    static Object answer(Object proxy, Method method, Object[] args) throws SQLException {
        return switch (method.getName()) {
            case "unwrap" -> unwrap(proxy, (Class<?>) args[0]);
            case "isWrapperFor" -> ((Class<?>) args[0]).isInstance(proxy);
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> throw new IllegalArgumentException("Not a method every proxy answers: " + method);
        };
    }

    private static Object unwrap(Object proxy, Class<?> type) throws SQLException {
        if (type.isInstance(proxy)) {
            return proxy;
        }
        throw new SQLException("The docmirror SQL endpoint does not unwrap to " + type.getName()
                + ": DuckDB's own objects would bypass the endpoint's read-only sandbox");
    }
}
