package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

/**
 * A large result (every column of the line-items table) read row by row through JDBC: in-process
 * ({@code jdbc:docmirror:}) against over the network (Arrow Flight SQL JDBC driver to the Flight SQL endpoint on
 * loopback), in the same run. Usage: {@code FlightTransferBenchmark [orders] [workDir]}; 250,000 orders give about
 * 1.1 million line items.
 */
public final class FlightTransferBenchmark {
    private static final int RUNS = 3;

    private FlightTransferBenchmark() {
    }

    public record Result(long rows, double inProcessRowsPerSecond, double flightRowsPerSecond) {
        public double ratio() {
            return flightRowsPerSecond / inProcessRowsPerSecond;
        }
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 250_000;
        Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("docmirror-flight-bench");
        run(orders, work, System.out);
    }

    public static Result run(int orders, Path work, PrintStream out) throws Exception {
        MirroredOrders data = MirroredOrders.build(work, orders, 0, out);
        String query = "SELECT * FROM " + DemoDataset.CONTAINER + "__items";
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
                FlightSqlServer server = FlightSqlServer.start(endpoint,
                        FlightConfig.defaults().withListener("127.0.0.1", 0))) {
            Properties login = new Properties();
            login.setProperty("user", server.username());
            login.setProperty("password", server.password());
            try (Connection inProcess = endpoint.connect();
                    Connection flight = DriverManager.getConnection(server.jdbcUrl(), login)) {
                Pass local = best(inProcess, query);
                Pass remote = best(flight, query);
                if (local.rows() != remote.rows()) {
                    throw new IllegalStateException("In-process read " + local.rows() + " rows, Flight "
                            + remote.rows());
                }
                Result result = new Result(local.rows(), local.rowsPerSecond(), remote.rowsPerSecond());
                out.printf(Locale.ROOT, "%,d rows x %d columns, every value read with getObject%n", result.rows(),
                        local.columns());
                out.printf(Locale.ROOT, "%-52s %12s%n", "", "rows/s");
                out.printf(Locale.ROOT, "%-52s %,12.0f%n", "in-process JDBC, jdbc:docmirror: (reference)",
                        result.inProcessRowsPerSecond());
                out.printf(Locale.ROOT, "%-52s %,12.0f%n", "Arrow Flight SQL JDBC driver over loopback",
                        result.flightRowsPerSecond());
                out.printf(Locale.ROOT, "ratio Flight / in-process: %.2f%n", result.ratio());
                return result;
            }
        }
    }

    private record Pass(long rows, int columns, double rowsPerSecond) {
    }

    /** The fastest of a few passes (the first also warms up). */
    private static Pass best(Connection connection, String query) throws SQLException {
        Pass best = null;
        for (int run = 0; run < RUNS; run++) {
            long startedAt = System.nanoTime();
            long rows = 0;
            int columns;
            try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
                columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    for (int column = 1; column <= columns; column++) {
                        result.getObject(column);
                    }
                    rows++;
                }
            }
            Pass pass = new Pass(rows, columns, rows / ((System.nanoTime() - startedAt) / 1e9));
            if (best == null || pass.rowsPerSecond() > best.rowsPerSecond()) {
                best = pass;
            }
        }
        return best;
    }
}
