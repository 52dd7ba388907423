package io.docmirror.sql.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.docmirror.sql.SqlEndpoint;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.BasicFlightSqlProducer;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Flight SQL over the SQL endpoint: every query goes through the endpoint's JDBC connections, so the read-only
 * sandbox, the column limit and the query timeout apply to network clients exactly as to in-process ones. Results
 * are DuckDB's own Arrow export, sent in record batches.
 *
 * <p>Read-only: updates, bulk ingestion and transactions are refused. Queries are run when a client asks for their
 * FlightInfo (whose schema is then the result's own) and held until the client fetches the ticket, or for
 * {@link #UNCLAIMED_RESULT_MINUTES} minutes.
 */
final class DocmirrorFlightProducer extends BasicFlightSqlProducer {
    static final long UNCLAIMED_RESULT_MINUTES = 5;

    private final SqlEndpoint endpoint;
    private final BufferAllocator allocator;
    private final long batchRows;
    private final CatalogMetadata catalog;
    private final SqlInfoBuilder sqlInfo;
    private final Map<ByteString, QueryResult> results = new ConcurrentHashMap<>();
    private final Map<ByteString, PreparedQuery> preparedQueries = new ConcurrentHashMap<>();

    DocmirrorFlightProducer(SqlEndpoint endpoint, BufferAllocator allocator, long batchRows, String version) {
        this.endpoint = endpoint;
        this.allocator = allocator;
        this.batchRows = batchRows;
        this.catalog = new CatalogMetadata(endpoint, allocator);
        this.sqlInfo = new SqlInfoBuilder()
                .withFlightSqlServerName("docmirror")
                .withFlightSqlServerVersion(version)
                .withFlightSqlServerArrowVersion(Optional.ofNullable(Schema.class.getPackage()
                        .getImplementationVersion()).orElse("unknown"))
                .withFlightSqlServerReadOnly(true)
                .withFlightSqlServerSql(true)
                .withFlightSqlServerSubstrait(false)
                .withFlightSqlServerTransaction(FlightSql.SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
                .withFlightSqlServerCancel(false)
                .withSqlIdentifierQuoteChar("\"")
                .withSqlIdentifierCase(FlightSql.SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE)
                .withSqlQuotedIdentifierCase(
                        FlightSql.SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE);
    }

    // Queries

    @Override
    public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context,
            FlightDescriptor descriptor) {
        return run(descriptor, () -> {
            Connection connection = endpoint.connect();
            try {
                Statement statement = connection.createStatement();
                return QueryResult.of(statement.executeQuery(command.getQuery()), allocator, batchRows, statement,
                        connection);
            } catch (SQLException | RuntimeException e) {
                Resources.closeAll(List.of(connection), e);
                throw e;
            }
        });
    }

    @Override
    public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context,
            FlightDescriptor descriptor) {
        throw CallStatus.UNIMPLEMENTED.withDescription("Ask for the FlightInfo instead: it carries the schema")
                .toRuntimeException();
    }

    @Override
    public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
        QueryResult result = results.remove(ticket.getStatementHandle());
        if (result == null) {
            listener.error(CallStatus.NOT_FOUND.withDescription("No result waits under this ticket: it was fetched "
                    + "already, or not fetched within " + UNCLAIMED_RESULT_MINUTES + " minutes").toRuntimeException());
            return;
        }
        try (result) {
            result.streamTo(listener);
        } catch (Exception e) {
            listener.error(failure(e));
        }
    }

    // Prepared statements

    @Override
    public void createPreparedStatement(ActionCreatePreparedStatementRequest request, CallContext context,
            StreamListener<Result> listener) {
        try {
            PreparedQuery query = PreparedQuery.prepare(endpoint, request.getQuery(), allocator);
            ByteString handle = newHandle();
            preparedQueries.put(handle, query);
            ActionCreatePreparedStatementResult result = ActionCreatePreparedStatementResult.newBuilder()
                    .setPreparedStatementHandle(handle)
                    .setParameterSchema(ByteString.copyFrom(query.parameterSchema().serializeAsMessage()))
                    .setDatasetSchema(ByteString.copyFrom(query.resultSchema().serializeAsMessage()))
                    .build();
            listener.onNext(new Result(Any.pack(result).toByteArray()));
            listener.onCompleted();
        } catch (Exception e) {
            listener.onError(failure(e));
        }
    }

    @Override
    public Runnable acceptPutPreparedStatementQuery(CommandPreparedStatementQuery command, CallContext context,
            FlightStream parameters, StreamListener<PutResult> ackStream) {
        return () -> {
            try {
                PreparedQuery query = preparedQuery(command.getPreparedStatementHandle());
                while (parameters.next()) {
                    query.bind(parameters.getRoot());
                }
                ackStream.onCompleted();
            } catch (Exception e) {
                ackStream.onError(failure(e));
            }
        };
    }

    @Override
    public FlightInfo getFlightInfoPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
            FlightDescriptor descriptor) {
        PreparedQuery query = preparedQuery(command.getPreparedStatementHandle());
        return run(descriptor, () -> query.execute(allocator, batchRows));
    }

    @Override
    public void closePreparedStatement(ActionClosePreparedStatementRequest request, CallContext context,
            StreamListener<Result> listener) {
        preparedQueries.remove(request.getPreparedStatementHandle());
        listener.onCompleted();
    }

    // Refused: the endpoint is read-only

    @Override
    public Runnable acceptPutStatement(CommandStatementUpdate command, CallContext context, FlightStream flightStream,
            StreamListener<PutResult> ackStream) {
        return () -> ackStream.onError(readOnly());
    }

    @Override
    public Runnable acceptPutPreparedStatementUpdate(CommandPreparedStatementUpdate command, CallContext context,
            FlightStream flightStream, StreamListener<PutResult> ackStream) {
        return () -> ackStream.onError(readOnly());
    }

    // Metadata: BasicFlightSqlProducer answers the FlightInfo with a ticket of the command itself (determineEndpoints)

    @Override
    protected <T extends Message> List<FlightEndpoint> determineEndpoints(T request, FlightDescriptor descriptor,
            Schema schema) {
        return List.of(new FlightEndpoint(new Ticket(Any.pack(request).toByteArray())));
    }

    @Override
    public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
        sqlInfo.send(command.getInfoList(), listener);
    }

    @Override
    public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
        send(listener, catalog::catalogs);
    }

    @Override
    public void getStreamSchemas(CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
        send(listener, () -> catalog.schemas(command));
    }

    @Override
    public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
        send(listener, () -> catalog.tables(command));
    }

    @Override
    public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
        send(listener, catalog::tableTypes);
    }

    /** The mirror's tables have no declared keys; tools that ask get an empty answer rather than an error. */
    @Override
    public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context,
            ServerStreamListener listener) {
        sendEmpty(listener, Schemas.GET_PRIMARY_KEYS_SCHEMA);
    }

    @Override
    public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context,
            ServerStreamListener listener) {
        sendEmpty(listener, Schemas.GET_EXPORTED_KEYS_SCHEMA);
    }

    @Override
    public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context,
            ServerStreamListener listener) {
        sendEmpty(listener, Schemas.GET_IMPORTED_KEYS_SCHEMA);
    }

    @Override
    public void getStreamCrossReference(CommandGetCrossReference command, CallContext context,
            ServerStreamListener listener) {
        sendEmpty(listener, Schemas.GET_CROSS_REFERENCE_SCHEMA);
    }

    // Plumbing

    /** Drops results that no client came back for. */
    void expireUnclaimedResults() {
        results.entrySet().removeIf(entry -> {
            if (entry.getValue().ageNanos() < TimeUnit.MINUTES.toNanos(UNCLAIMED_RESULT_MINUTES)) {
                return false;
            }
            entry.getValue().close();
            return true;
        });
    }

    @Override
    public void close() {
        results.values().forEach(QueryResult::close);
        results.clear();
        preparedQueries.clear();
    }

    private interface Execution {
        QueryResult run() throws SQLException;
    }

    private FlightInfo run(FlightDescriptor descriptor, Execution execution) {
        QueryResult result;
        try {
            result = execution.run();
        } catch (Exception e) {
            throw failure(e);
        }
        ByteString handle = newHandle();
        results.put(handle, result);
        Ticket ticket = new Ticket(Any.pack(TicketStatementQuery.newBuilder().setStatementHandle(handle).build())
                .toByteArray());
        return new FlightInfo(result.schema(), descriptor, List.of(new FlightEndpoint(ticket)), -1, -1);
    }

    private interface Rows {
        VectorSchemaRoot read() throws SQLException;
    }

    private static void send(ServerStreamListener listener, Rows rows) {
        try (VectorSchemaRoot root = rows.read()) {
            listener.start(root);
            listener.putNext();
            listener.completed();
        } catch (Exception e) {
            listener.error(failure(e));
        }
    }

    private void sendEmpty(ServerStreamListener listener, Schema schema) {
        send(listener, () -> VectorSchemaRoot.create(schema, allocator));
    }

    private PreparedQuery preparedQuery(ByteString handle) {
        PreparedQuery query = preparedQueries.get(handle);
        if (query == null) {
            throw CallStatus.NOT_FOUND.withDescription("No prepared statement with this handle (it was closed)")
                    .toRuntimeException();
        }
        return query;
    }

    private static ByteString newHandle() {
        UUID uuid = UUID.randomUUID();
        return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).flip());
    }

    private static FlightRuntimeException readOnly() {
        return CallStatus.INVALID_ARGUMENT.withDescription("The docmirror SQL endpoint is read-only: updates are "
                + "not allowed").toRuntimeException();
    }

    /** An error as the client sees it: the endpoint's own message, with a status that says whose fault it is. */
    private static FlightRuntimeException failure(Exception e) {
        if (e instanceof FlightRuntimeException flight) {
            return flight;
        }
        CallStatus status = e instanceof SQLTimeoutException ? CallStatus.TIMED_OUT
                : e instanceof SQLException ? CallStatus.INVALID_ARGUMENT : CallStatus.INTERNAL;
        return status.withDescription(e.getMessage()).withCause(e).toRuntimeException();
    }
}
