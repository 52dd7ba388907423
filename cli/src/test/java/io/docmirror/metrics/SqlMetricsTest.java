package io.docmirror.metrics;

import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SQL endpoint's metrics as a Flight SQL client makes them: a query fetched, one refused, a ticket never
 * fetched; served with the JVM's and the process's standard metrics.
 */
class SqlMetricsTest {
    @TempDir
    Path dir;

    @Test
    void countsQueriesByOutcomeTheirLatencyTheBytesSentAndTheTicketsPending() throws Exception {
        Path mirror = Files.createDirectories(dir.resolve("mirror"));
        SqlMetrics metrics = new SqlMetrics();
        try (SqlEndpoint endpoint = SqlEndpoint.open(mirror, SqlConfig.defaults());
                FlightSqlServer server = FlightSqlServer.start(endpoint,
                        FlightConfig.defaults().withListener("127.0.0.1", 0).withPassword("s3cret-for-tests-only-0123456789ab"), metrics);
                MetricsServer metricsServer = MetricsServer.startIfEnabled(MetricsConfig.defaults().withPort(0),
                        List.of(metrics)).orElseThrow();
                BufferAllocator allocator = new RootAllocator();
                FlightClient client = FlightClient.builder(allocator,
                        Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
            CredentialCallOption login = client.authenticateBasicToken("docmirror", "s3cret-for-tests-only-0123456789ab").orElseThrow();
            FlightSqlClient sql = new FlightSqlClient(client);

            FlightInfo fetched = sql.execute("SELECT i FROM range(10000) AS t(i)", login);
            long rows = 0;
            try (FlightStream stream = sql.getStream(fetched.getEndpoints().get(0).getTicket(), login)) {
                while (stream.next()) {
                    rows += stream.getRoot().getRowCount();
                }
            }
            assertThat(rows).isEqualTo(10_000);
            assertThatThrownBy(() -> sql.execute("COPY (SELECT 1) TO 'out.csv'", login))
                    .isInstanceOfSatisfying(FlightRuntimeException.class, e ->
                            assertThat(e.status().code()).isEqualTo(CallStatus.INVALID_ARGUMENT.code()));
            sql.execute("SELECT 42", login);

            String text = Scrape.text(metricsServer.metricsUri());

            assertThat(Scrape.sample(text, "docmirror_sql_queries_total{outcome=\"ok\"}")).isEqualTo(1);
            assertThat(Scrape.sample(text, "docmirror_sql_queries_total{outcome=\"refused\"}")).isEqualTo(1);
            assertThat(Scrape.sample(text, "docmirror_sql_queries_total{outcome=\"timed_out\"}")).isZero();
            assertThat(Scrape.sample(text, "docmirror_sql_query_duration_seconds_count{outcome=\"ok\"}")).isEqualTo(1);
            assertThat(Scrape.sample(text, "docmirror_sql_query_duration_seconds_bucket{outcome=\"ok\",le=\"+Inf\"}"))
                    .isEqualTo(1);
            assertThat(Scrape.sample(text, "docmirror_sql_query_duration_seconds_sum{outcome=\"ok\"}")).isPositive();
            // 10,000 BIGINTs are 80,000 bytes of values, sent in Arrow buffers at least that large.
            assertThat(Scrape.sample(text, "docmirror_sql_sent_bytes_total")).isGreaterThanOrEqualTo(80_000);
            // A fetched ticket is taken: only the one never fetched waits.
            assertThat(Scrape.sample(text, "docmirror_sql_tickets_pending")).as("the ticket never fetched")
                    .isEqualTo(1);
            assertThat(text).contains("# TYPE docmirror_sql_query_duration_seconds histogram",
                    "# TYPE docmirror_sql_queries_total counter");

            assertThat(Scrape.sample(text, "jvm_memory_used_bytes{area=\"heap\"}")).isPositive();
            assertThat(Scrape.sample(text, "process_cpu_seconds_total")).isPositive();
            assertThat(text).contains("jvm_threads_current ", "process_open_fds ", "process_start_time_seconds ");
        }
    }
}
