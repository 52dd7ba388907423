package io.docmirror.cli;

import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.Callable;

@Command(name = "sql", mixinStandardHelpOptions = true,
        description = {"Run one query on the mirror (read-only, sandboxed) and print its result.",
                "`sql serve` serves the mirror to SQL clients over the network instead (Arrow Flight SQL)."},
        subcommands = SqlServeCommand.class)
final class SqlCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    // Not the DataDirOptions mixin: picocli would require its --data of `sql` even when `sql serve` has its own.
    @Option(names = "--data", paramLabel = "DIR", description = "The data directory (required).")
    Path data;

    @Mixin
    ConfigFileOption config;

    @Option(names = "--format", defaultValue = "table", paramLabel = "FORMAT",
            description = "table, csv or jsonl (one JSON object per row: LIST as arrays, STRUCT as objects, DECIMAL "
                    + "exactly, NULL as null). Default: ${DEFAULT-VALUE}.")
    String format;

    // Optional to picocli so that `sql serve` needs no query; a query is still required without a subcommand.
    @Parameters(paramLabel = "QUERY", arity = "0..1",
            description = "The query, e.g. \"SELECT count(*) FROM orders\".")
    String query;

    @Override
    public Integer call() throws Exception {
        if (data == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--data=DIR'");
        }
        if (query == null) {
            throw new ParameterException(spec.commandLine(), "Missing required parameter: 'QUERY'");
        }
        DataDirOptions dataDir = DataDirOptions.of(data, config);
        ResultPrinter.Format resultFormat = switch (format) {
            case "table" -> ResultPrinter.Format.TABLE;
            case "csv" -> ResultPrinter.Format.CSV;
            case "jsonl" -> ResultPrinter.Format.JSONL;
            default -> throw new IllegalArgumentException("Unknown format '" + format
                    + "': use table, csv or jsonl");
        };
        SqlConfig config = dataDir.sqlConfig();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (SqlEndpoint endpoint = SqlEndpoint.open(dataDir.mirrorDirectory(), dataDir.catalogOptions(), config);
                Connection connection = endpoint.connect();
                Statement statement = connection.createStatement()) {
            ResultPrinter.print(statement.executeQuery(query), resultFormat, out);
        } finally {
            out.flush();
        }
        return ExitCodes.OK;
    }
}
