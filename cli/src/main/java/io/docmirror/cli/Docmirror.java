package io.docmirror.cli;

import io.docmirror.store.StoreException;
import picocli.CommandLine;

import java.sql.SQLException;

/** The {@code docmirror} command's entry point: parse, run, exit non-zero on failure. */
public final class Docmirror {
    private Docmirror() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        CommandLine commandLine = new CommandLine(new DocmirrorCommand());
        // Enum options are written in lower case on the command line (--source kafka).
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionExceptionHandler((exception, line, parseResult) -> {
            // Errors a user can act on are one clear line; anything else keeps its stack trace.
            if (exception instanceof StoreException || exception instanceof IllegalArgumentException
                    || exception instanceof SQLException) {
                line.getErr().println("docmirror: " + exception.getMessage());
            }
            else {
                line.getErr().println("docmirror: " + exception);
                exception.printStackTrace(line.getErr());
            }
            return ExitCodes.FAILURE;
        });
        return commandLine.execute(args);
    }
}
