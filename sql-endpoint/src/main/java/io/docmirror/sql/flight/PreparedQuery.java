package io.docmirror.sql.flight;

import io.docmirror.sql.ArrowExport;
import io.docmirror.sql.SqlEndpoint;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A query checked and described, ready to run: a client's prepared statement (with the parameter values the client
 * sent last), or a plain statement between its GetFlightInfo and its fetch. Each execution prepares the query afresh
 * on a connection of its own, so that executions never share a DuckDB statement (a second execution would close the
 * first one's result while a client still streams it) and each runs on the copy as it stands.
 */
final class PreparedQuery {
    private static final Pattern TRAILING_SEMICOLONS = Pattern.compile("[\\s;]+$");

    private final SqlEndpoint endpoint;
    private final String sql;
    private final Schema parameterSchema;
    private final Schema resultSchema;
    private Object[] values;

    private PreparedQuery(SqlEndpoint endpoint, String sql, Schema parameterSchema, Schema resultSchema) {
        this.endpoint = endpoint;
        this.sql = sql;
        this.parameterSchema = parameterSchema;
        this.resultSchema = resultSchema;
        this.values = new Object[parameterSchema.getFields().size()];
    }

    /**
     * Prepares {@code sql} once, so that a query the endpoint refuses (not read-only, too many columns) fails now,
     * and learns its parameters and the schema of its result.
     */
    static PreparedQuery prepare(SqlEndpoint endpoint, String sql, BufferAllocator allocator) throws SQLException {
        try (Connection connection = endpoint.connect();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            Schema parameters = ArrowParameters.schema(statement.getParameterMetaData());
            return new PreparedQuery(endpoint, sql, parameters,
                    resultSchema(connection, statement, sql, parameters.getFields().size(), allocator));
        }
    }

    Schema parameterSchema() {
        return parameterSchema;
    }

    /**
     * The schema of the query's result, with each column's Flight SQL metadata ({@link ColumnMetadata}), which also
     * tells a client that this is a query and not an update (the JDBC driver takes an empty schema for an update).
     */
    Schema resultSchema() {
        return resultSchema;
    }

    /**
     * DuckDB's own Arrow schema of the result, from the query run with no rows ({@code LIMIT 0}) and NULL for every
     * parameter. A statement that cannot be wrapped so (EXPLAIN, DESCRIBE, SHOW) is run as it is when it has no
     * parameters, which is cheap for those; failing both, the schema is left empty.
     */
    private static Schema resultSchema(Connection connection, PreparedStatement statement, String sql,
            int parameterCount, BufferAllocator allocator) throws SQLException {
        String query = TRAILING_SEMICOLONS.matcher(sql).replaceFirst("");
        try (PreparedStatement empty = connection.prepareStatement("SELECT * FROM (\n" + query + "\n) LIMIT 0")) {
            for (int index = 1; index <= parameterCount; index++) {
                empty.setObject(index, null);
            }
            return schemaOf(empty, allocator);
        } catch (SQLException notWrappable) {
            if (parameterCount > 0) {
                return new Schema(List.of());
            }
            return schemaOf(statement, allocator);
        }
    }

    private static Schema schemaOf(PreparedStatement statement, BufferAllocator allocator) throws SQLException {
        try (ResultSet result = statement.executeQuery(); ArrowReader reader = ArrowExport.of(result, allocator, 1)) {
            return ColumnMetadata.ofResult(reader.getVectorSchemaRoot().getSchema(), result.getMetaData());
        } catch (IOException e) {
            throw new SQLException("Cannot read the Arrow schema of the query's result: " + e.getMessage(), e);
        }
    }

    /** Takes the values a client sent: one row, one column per parameter. */
    synchronized void bind(VectorSchemaRoot sent) throws SQLException {
        if (sent.getRowCount() != 1) {
            throw new SQLException("Send one set of parameter values per execution, not " + sent.getRowCount(),
                    "07001");
        }
        values = ArrowParameters.values(sent, 0, values.length);
    }

    /** The values bound last (a copy). */
    synchronized Object[] boundValues() {
        return Arrays.copyOf(values, values.length);
    }

    /**
     * Runs the query with {@code bound} values; the result owns its statement and connection. A query without
     * parameters runs as a plain statement's, which DuckDB plans better than a prepared one (see
     * {@code EndpointStatement}).
     */
    QueryResult execute(Object[] bound, BufferAllocator allocator, long batchRows) throws SQLException {
        Connection connection = endpoint.connect();
        Statement statement = null;
        try {
            if (bound.length == 0) {
                statement = connection.createStatement();
                return QueryResult.of(statement.executeQuery(sql), allocator, batchRows, statement, connection);
            }
            PreparedStatement prepared = connection.prepareStatement(sql);
            statement = prepared;
            for (int index = 0; index < bound.length; index++) {
                prepared.setObject(index + 1, bound[index]);
            }
            return QueryResult.of(prepared.executeQuery(), allocator, batchRows, statement, connection);
        } catch (SQLException | RuntimeException e) {
            Resources.closeAll(statement == null ? List.of(connection)
                    : List.of(statement, connection), e);
            throw e;
        }
    }
}
