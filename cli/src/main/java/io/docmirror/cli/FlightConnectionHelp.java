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
        out.println("  password: " + server.password());
    }
}
