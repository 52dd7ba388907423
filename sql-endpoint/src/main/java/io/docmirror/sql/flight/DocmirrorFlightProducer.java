package io.docmirror.sql.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.flight.FlightConstants;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.ServerHeaderMiddleware;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.BasicFlightSqlProducer;
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
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Flight SQL over the SQL endpoint: every query goes through the endpoint's JDBC connections, so the read-only
 * sandbox, the column limit and the query timeout apply to network clients exactly as to in-process ones. Results
 * are DuckDB's own Arrow export, sent in record batches.
 *
 * <p>Read-only: updates, bulk ingestion and transactions are refused. GetFlightInfo checks and describes a query
 * (its schema, with each column's metadata) and hands out a ticket ({@link IssuedTickets}); the query runs when the
 * ticket is fetched, so no result waits in memory for a client that never comes back, and a ticket can be fetched
 * again until it expires.
 */
final class DocmirrorFlightProducer extends BasicFlightSqlProducer {
    private final SqlEndpoint endpoint;
    private final BufferAllocator allocator;
    private final long batchRows;
    private final CatalogMetadata catalog;
    private final ServerSqlInfo sqlInfo;
    private final IssuedTickets tickets;
    private final OpenStreams streams;
    private final Duration streamIdleTimeout;
    private final QueryObserver observer;
    private final Map<ByteString, PreparedQuery> preparedQueries = new ConcurrentHashMap<>();

    /**
     * @param streams the results being read, and how many may be
     * @param streamIdleTimeout how long a result waits for a client that reads nothing
     */
    DocmirrorFlightProducer(SqlEndpoint endpoint, BufferAllocator allocator, long batchRows, ServerSqlInfo sqlInfo,
            IssuedTickets tickets, OpenStreams streams, Duration streamIdleTimeout, QueryObserver observer) {
        this.endpoint = endpoint;
        this.allocator = allocator;
        this.batchRows = batchRows;
        this.catalog = new CatalogMetadata(endpoint, allocator);
        this.sqlInfo = sqlInfo;
        this.tickets = tickets;
        this.streams = streams;
        this.streamIdleTimeout = streamIdleTimeout;
        this.observer = observer;
    }

    // Queries

    @Override
    public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context,
            FlightDescriptor descriptor) {
        long started = System.nanoTime();
        PreparedQuery query;
        try {
            query = prepare(command.getQuery());
        } catch (FlightRuntimeException e) {
            observer.answered(outcomeOf(e), System.nanoTime() - started, 0);
            throw e;
        }
        return ticketed(context, descriptor, query, new Object[0]);
    }

    @Override
    public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context,
            FlightDescriptor descriptor) {
        return new SchemaResult(prepare(command.getQuery()).resultSchema());
    }

    @Override
    public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
        long started = System.nanoTime();
        IssuedTickets.Pending pending = tickets.take(ticket.getStatementHandle()).orElse(null);
        observer.ticketsPending(tickets.size());
        if (pending == null) {
            observer.answered(QueryOutcome.EXPIRED, System.nanoTime() - started, 0);
            listener.error(CallStatus.NOT_FOUND.withDescription("No query waits under this ticket: it was fetched "
                    + "already (a ticket is fetched once), expired (" + FlightConfig.TICKET_LIFETIME_MS.key() + ", "
                    + tickets.lifetime().toSeconds() + " s) or was dropped for the client's newer ones ("
                    + FlightConfig.MAX_TICKETS_PER_CLIENT.key() + "); ask for a new FlightInfo")
                    .toRuntimeException());
            return;
        }
        String client = client(context);
        Optional<String> refused = streams.open(client);
        if (refused.isPresent()) {
            observer.answered(QueryOutcome.REFUSED, System.nanoTime() - started, 0);
            listener.error(CallStatus.RESOURCE_EXHAUSTED.withDescription("Cannot stream the result now: "
                    + refused.get()).toRuntimeException());
            return;
        }
        long bytesSent = 0;
        QueryOutcome outcome;
        try (QueryResult result = pending.query().execute(pending.values(), allocator, batchRows)) {
            try {
                outcome = result.streamTo(listener, streamIdleTimeout) ? QueryOutcome.OK : QueryOutcome.CANCELLED;
            } finally {
                bytesSent = result.bytesSent();
            }
        } catch (Exception e) {
            FlightRuntimeException failure = failure(e);
            outcome = outcomeOf(failure);
            listener.error(failure);
        } finally {
            streams.close(client);
        }
        observer.answered(outcome, System.nanoTime() - started, bytesSent);
    }

    /** The results being streamed now. */
    int openStreams() {
        return streams.open();
    }

    // Prepared statements

    @Override
    public void createPreparedStatement(ActionCreatePreparedStatementRequest request, CallContext context,
            StreamListener<Result> listener) {
        long started = System.nanoTime();
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
            FlightRuntimeException failure = failure(e);
            observer.answered(outcomeOf(failure), System.nanoTime() - started, 0);
            listener.onError(failure);
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
        return ticketed(context, descriptor, query, query.boundValues());
    }

    @Override
    public SchemaResult getSchemaPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
            FlightDescriptor descriptor) {
        return new SchemaResult(preparedQuery(command.getPreparedStatementHandle()).resultSchema());
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
        send(listener, () -> SqlInfoRows.of(sqlInfo.answers(command.getInfoList()), allocator));
    }

    @Override
    public void getStreamTypeInfo(CommandGetXdbcTypeInfo command, CallContext context,
            ServerStreamListener listener) {
        send(listener, () -> XdbcTypeInfo.rows(command, allocator));
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

    @Override
    public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context,
            ServerStreamListener listener) {
        send(listener, () -> catalog.primaryKeys(command));
    }

    @Override
    public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context,
            ServerStreamListener listener) {
        send(listener, () -> catalog.exportedKeys(command));
    }

    @Override
    public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context,
            ServerStreamListener listener) {
        send(listener, () -> catalog.importedKeys(command));
    }

    @Override
    public void getStreamCrossReference(CommandGetCrossReference command, CallContext context,
            ServerStreamListener listener) {
        send(listener, () -> catalog.crossReference(command));
    }

    // Plumbing

    /** Drops the tickets that expired. */
    void expireTickets() {
        tickets.expire();
        observer.ticketsPending(tickets.size());
    }

    @Override
    public void close() {
        tickets.clear();
        observer.ticketsPending(0);
        preparedQueries.clear();
    }

    private PreparedQuery prepare(String sql) {
        try {
            return PreparedQuery.prepare(endpoint, sql, allocator);
        } catch (Exception e) {
            throw failure(e);
        }
    }

    /** A FlightInfo whose one ticket runs {@code query} with {@code values} when fetched, until it expires. */
    private FlightInfo ticketed(CallContext context, FlightDescriptor descriptor, PreparedQuery query,
            Object[] values) {
        ByteString handle = tickets.issue(client(context), query, values);
        observer.ticketsPending(tickets.size());
        Ticket ticket = new Ticket(Any.pack(TicketStatementQuery.newBuilder().setStatementHandle(handle).build())
                .toByteArray());
        Instant expires = Instant.now().plus(tickets.lifetime());
        return new FlightInfo(query.resultSchema(), descriptor, List.of(new FlightEndpoint(ticket, expires)), -1,
                -1);
    }

    /**
     * Who is asking: the login, told apart by the bearer token it was given (every client logs in as the one
     * configured user), so that one client's tickets never push out another's.
     */
    private static String client(CallContext context) {
        ServerHeaderMiddleware headers = context.getMiddleware(FlightConstants.HEADER_KEY);
        CallHeaders callHeaders = headers == null ? null : headers.headers();
        String authorization = callHeaders == null ? null : callHeaders.get("authorization");
        return context.peerIdentity() + (authorization == null ? "" : "\0" + authorization);
    }

    private interface Rows {
        VectorSchemaRoot read() throws SQLException;
    }

    private void send(ServerStreamListener listener, Rows rows) {
        try (VectorSchemaRoot root = rows.read()) {
            listener.start(root);
            listener.putNext();
            listener.completed();
        } catch (Exception e) {
            listener.error(failure(e));
        }
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

    /** How a query that failed with {@code failure} (as {@link #failure} made it) ended. */
    private static QueryOutcome outcomeOf(FlightRuntimeException failure) {
        return switch (failure.status().code()) {
            case INVALID_ARGUMENT, RESOURCE_EXHAUSTED -> QueryOutcome.REFUSED;
            case TIMED_OUT -> QueryOutcome.TIMED_OUT;
            case CANCELLED -> QueryOutcome.CANCELLED;
            default -> QueryOutcome.FAILED;
        };
    }

    /** An error as the client sees it: the endpoint's own message, with a status that says whose fault it is. */
    private FlightRuntimeException failure(Exception e) {
        if (e instanceof FlightRuntimeException flight) {
            return flight;
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutOfMemoryException) {
                return CallStatus.RESOURCE_EXHAUSTED.withDescription("Cannot send the result: the results being sent "
                        + "would take more memory than " + SqlConfig.MEMORY_LIMIT.key() + " ("
                        + endpoint.config().memoryLimit() + ") allows; ask for fewer rows or columns at once, or "
                        + "lower " + FlightConfig.BATCH_ROWS.key()).withCause(e).toRuntimeException();
            }
        }
        CallStatus status = e instanceof SQLTimeoutException ? CallStatus.TIMED_OUT
                : e instanceof SQLException ? CallStatus.INVALID_ARGUMENT : CallStatus.INTERNAL;
        return status.withDescription(e.getMessage()).withCause(e).toRuntimeException();
    }
}
