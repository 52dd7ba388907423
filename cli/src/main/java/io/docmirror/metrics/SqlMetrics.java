package io.docmirror.metrics;

import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.QueryObserver;
import io.docmirror.sql.flight.QueryOutcome;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The SQL endpoint's Flight SQL queries, counted as they end: by outcome, their latency, the bytes of the results
 * sent, and the tickets waiting to be fetched (each a query that runs when fetched; no result waits in memory).
 */
public final class SqlMetrics implements QueryObserver, MultiCollector {
    /** From 1 ms (a point lookup on a small table) to 5 minutes (the default sql.query-timeout-ms). */
    private static final double[] LATENCY_BOUNDS_SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
            0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

    private final Counter queries = Counter.builder()
            .name("docmirror_sql_queries")
            .help("Flight SQL queries that ended, by outcome (ok, refused, timed_out, cancelled, expired, failed)")
            .labelNames("outcome")
            .build();
    private final Histogram latency = Histogram.builder()
            .name("docmirror_sql_query_duration_seconds")
            .help("Time from a query's call to its end: the run and the sending of every row for a fetched ticket, "
                    + "the refusal for a refused query")
            .labelNames("outcome")
            .classicOnly()
            .classicUpperBounds(LATENCY_BOUNDS_SECONDS)
            .build();
    private final Counter bytesSent = Counter.builder()
            .name("docmirror_sql_sent_bytes")
            .help("Bytes of Arrow record batches sent to Flight SQL clients")
            .build();
    private final Gauge ticketsPending = Gauge.builder()
            .name("docmirror_sql_tickets_pending")
            .help("Tickets handed out with FlightInfos that may still be fetched ("
                    + FlightConfig.TICKET_LIFETIME_MS.key() + ")")
            .build();

    public SqlMetrics() {
        // Every outcome from the start, so that rate() sees the first query of each kind.
        for (QueryOutcome outcome : QueryOutcome.values()) {
            queries.labelValues(outcome.label());
        }
    }

    @Override
    public void answered(QueryOutcome outcome, long nanos, long bytes) {
        queries.labelValues(outcome.label()).inc();
        latency.labelValues(outcome.label()).observe(nanos / 1e9);
        bytesSent.inc(bytes);
    }

    @Override
    public void ticketsPending(int tickets) {
        ticketsPending.set(tickets);
    }

    @Override
    public MetricSnapshots collect() {
        return MetricSnapshots.of(queries.collect(), latency.collect(), bytesSent.collect(), ticketsPending.collect());
    }
}
