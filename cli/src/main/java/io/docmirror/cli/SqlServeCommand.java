package io.docmirror.cli;

import io.docmirror.metrics.MetricsServer;
import io.docmirror.metrics.SqlMetrics;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;
import io.docmirror.sql.flight.QueryObserver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve the mirror to SQL clients over Arrow Flight SQL until stopped: any JDBC tool with the "
                + "Arrow Flight SQL JDBC driver, ADBC, pyarrow.",
                "Read-only and sandboxed like `docmirror sql`; clients log in with flight.username and "
                        + "flight.password (a random password is made and printed when none is configured)."})
final class SqlServeCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Option(names = "--port", paramLabel = "N", description = "Port (default: flight.port, 32010; 0 picks one).")
    Integer port;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "Address (default: flight.bind, 127.0.0.1).")
    String bind;

    @Option(names = "--metrics-port", paramLabel = "N",
            description = "Also serve Prometheus metrics at /metrics on this port (queries by outcome, latency, bytes "
                    + "sent, tickets pending, JVM; address: metrics.bind; 0 picks one). None without it.")
    Integer metricsPort;

    @Override
    public Integer call() throws Exception {
        FlightConfig config = dataDir.flightConfig();
        config = config.withListener(bind != null ? bind : config.bind(), port != null ? port : config.port());
        SqlEndpoint endpoint = SqlEndpoint.open(dataDir.mirrorDirectory(), dataDir.catalogOptions(),
                dataDir.sqlConfig());
        SqlMetrics metrics = new SqlMetrics();
        FlightSqlServer server;
        try {
            server = FlightSqlServer.start(endpoint, config, metricsPort == null ? QueryObserver.NONE : metrics);
        } catch (Exception e) {
            endpoint.close();
            throw e;
        }
        Optional<MetricsServer> metricsServer;
        try {
            metricsServer = metricsPort == null ? Optional.empty()
                    : MetricsOptions.start(dataDir.metricsConfig().withPort(metricsPort), List.of(metrics), System.out);
        } catch (RuntimeException e) {
            server.close();
            endpoint.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                metricsServer.ifPresent(MetricsServer::close);
                server.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                endpoint.close();
                stopped.countDown();
            }
        }, "docmirror-shutdown"));
        FlightConnectionHelp.print(System.out, server);
        System.out.println("Ctrl-C stops it.");
        System.out.flush();
        stopped.await();
        return ExitCodes.OK;
    }
}
