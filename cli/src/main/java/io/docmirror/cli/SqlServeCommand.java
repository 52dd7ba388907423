package io.docmirror.cli;

import io.docmirror.sql.SqlEndpoint;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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

    @Override
    public Integer call() throws Exception {
        FlightConfig config = dataDir.flightConfig();
        config = config.withListener(bind != null ? bind : config.bind(), port != null ? port : config.port());
        SqlEndpoint endpoint = SqlEndpoint.open(dataDir.mirrorDirectory(), dataDir.catalogOptions(), dataDir.sqlConfig());
        FlightSqlServer server;
        try {
            server = FlightSqlServer.start(endpoint, config);
        } catch (Exception e) {
            endpoint.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
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
