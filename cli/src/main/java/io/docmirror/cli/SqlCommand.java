package io.docmirror.cli;

import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.Callable;

@Command(name = "sql", mixinStandardHelpOptions = true,
        description = "Run one query on the mirror (read-only, sandboxed) and print its result.")
final class SqlCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
            description = "table, csv or jsonl (one JSON object per row: LIST as arrays, STRUCT as objects, DECIMAL "
                    + "exactly, NULL as null). Default: ${DEFAULT-VALUE}.")
    String format;

    @Parameters(paramLabel = "QUERY", description = "The query, e.g. \"SELECT count(*) FROM orders\".")
    String query;

    @Override
    public Integer call() throws Exception {
        ResultPrinter.Format resultFormat = switch (format) {
            case "table" -> ResultPrinter.Format.TABLE;
            case "csv" -> ResultPrinter.Format.CSV;
            case "jsonl" -> ResultPrinter.Format.JSONL;
            default -> throw new IllegalArgumentException("Unknown format '" + format
                    + "': use table, csv or jsonl");
        };
        SqlConfig config = dataDir.sqlConfig();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (SqlEndpoint endpoint = SqlEndpoint.open(dataDir.mirrorDirectory(), config);
                Connection connection = endpoint.connect();
                Statement statement = connection.createStatement()) {
            ResultPrinter.print(statement.executeQuery(query), resultFormat, out);
        } finally {
            out.flush();
        }
        return ExitCodes.OK;
    }
}
