package io.docmirror.cli;

import io.docmirror.sql.flight.FlightSqlServer;

import java.io.PrintStream;

/** How to connect to a running Flight SQL endpoint, as `sql serve` and `run` print it. */
final class FlightConnectionHelp {
    private FlightConnectionHelp() {
    }

    static void print(PrintStream out, FlightSqlServer server) {
        out.println("SQL over the network (Arrow Flight SQL JDBC driver, org.apache.arrow:flight-sql-jdbc-driver):");
        out.println("  URL:      " + server.jdbcUrl());
        out.println("  user:     " + server.username());
        // A configured password is a secret of its owner's: only one made at start is shown, or nobody could log in.
        out.println("  password: " + server.generatedPassword().map(made -> made + " (made at start; set "
                + "flight.password to choose one)").orElse("the one configured as flight.password"));
    }
}
