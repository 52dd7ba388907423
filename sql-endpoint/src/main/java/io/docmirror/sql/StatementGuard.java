package io.docmirror.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lets through exactly one read-only query per statement, as DuckDB's own parser sees it. DuckDB's
 * {@code json_serialize_sql} serialises SELECT statements only (SELECT, FROM-first, WITH, VALUES, and the DESCRIBE,
 * SHOW and SUMMARIZE that DuckDB turns into SELECTs) and fails on anything else, so COPY, EXPORT, INSERT, CREATE,
 * ATTACH, PRAGMA, SET and the rest are refused before they are prepared. One statement only: DuckDB's JDBC driver
 * runs every statement but the last while preparing, so {@code SELECT 1; COPY ...} must never reach it.
 * {@code EXPLAIN [ANALYZE]} of such a query is allowed too.
 *
 * <p>A SELECT can still hold a data-changing statement: DuckDB takes {@code INSERT}, {@code UPDATE}, {@code DELETE}
 * (and {@code MERGE}) with {@code RETURNING} as a common table expression, {@code WITH x AS (DELETE FROM t
 * RETURNING *) SELECT * FROM x}. So every query node of the parsed statement, however deeply nested, must be one
 * that only reads: a SELECT, a set operation (UNION, ...), a CTE or a recursive CTE.
 */
final class StatementGuard implements AutoCloseable {
    private static final Pattern EXPLAIN = Pattern.compile("\\s*EXPLAIN(\\s+ANALY[SZ]E)?\\s+(.*)",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** DuckDB's query node types (QueryNodeType) that only read; any other one (INSERT_QUERY_NODE, ...) writes. */
    private static final Set<String> READING_NODES = Set.of("SELECT_NODE", "SET_OPERATION_NODE", "CTE_NODE",
            "RECURSIVE_CTE_NODE", "BOUND_SUBQUERY_NODE");

    private final Connection connection;
    private final PreparedStatement serialize;

    /** @param connection a connection of the endpoint's own, never a user's; the guard closes it */
    StatementGuard(Connection connection) throws SQLException {
        this.connection = connection;
        this.serialize = connection.prepareStatement("SELECT json_serialize_sql(?::VARCHAR)");
    }

    /**
     * @throws SQLException naming the rule, when {@code sql} is not a single read-only query
     */
    synchronized void check(String sql) throws SQLException {
        Matcher explain = EXPLAIN.matcher(sql);
        String query = explain.matches() ? explain.group(2) : sql;
        serialize.setString(1, query);
        JsonNode parsed;
        try (ResultSet result = serialize.executeQuery()) {
            result.next();
            parsed = JSON.readTree(result.getString(1));
        } catch (IOException e) {
            throw new SQLException("Cannot check the statement: " + e.getMessage(), e);
        }
        if (parsed.path("error").asBoolean(true)) {
            String message = parsed.path("error_message").asText("");
            if (message.startsWith("Only SELECT statements")) {
                throw refused(sql, "only queries are allowed (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, "
                        + "SUMMARIZE and EXPLAIN of them)");
            }
            // A syntax error: the user needs DuckDB's own message, with its position.
            throw new SQLException(parsed.path("error_type").asText("Parser") + " Error: " + message, "42601");
        }
        int statements = parsed.path("statements").size();
        if (statements != 1) {
            throw refused(sql, "one statement at a time (this text has " + statements + ")");
        }
        Optional<String> writing = writingNode(parsed.path("statements"));
        if (writing.isPresent()) {
            throw refused(sql, "only queries are allowed, and a query may not change data inside it (this one "
                    + "has " + writing.get().replace("_QUERY_NODE", "").replace("_NODE", "") + ")");
        }
    }

    /** The first query node anywhere in {@code node} that is not one of {@link #READING_NODES}. */
    private static Optional<String> writingNode(JsonNode node) {
        if (node.isObject()) {
            JsonNode type = node.get("type");
            if (type != null && type.isTextual() && type.asText().endsWith("_NODE")
                    && !READING_NODES.contains(type.asText())) {
                return Optional.of(type.asText());
            }
        }
        for (JsonNode child : node) {
            Optional<String> found = writingNode(child);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static SQLException refused(String sql, String rule) {
        String shown = sql.strip();
        if (shown.length() > 80) {
            shown = shown.substring(0, 80) + "...";
        }
        return new SQLException("The docmirror SQL endpoint is read-only: " + rule + "; refused: " + shown,
                "42501");
    }

    @Override
    public synchronized void close() throws SQLException {
        try {
            serialize.close();
        } finally {
            connection.close();
        }
    }
}
