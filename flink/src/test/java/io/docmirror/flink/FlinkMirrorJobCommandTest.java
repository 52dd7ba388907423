package io.docmirror.flink;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The job's command refuses bad input before it asks the store or Flink anything, naming the option and the rule. */
class FlinkMirrorJobCommandTest {
    @TempDir
    Path dir;

    @Test
    void aMirrorDirectoryThatIsNotThereIsRefused() {
        StringWriter err = new StringWriter();
        int exit = run(err, "--mirror", dir.resolve("missing").toString(), "--parallelism", "2");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--mirror " + dir.resolve("missing") + ": no such directory");
    }

    @Test
    void noWritersIsRefused() {
        StringWriter err = new StringWriter();
        int exit = run(err, "--mirror", dir.toString(), "--parallelism", "0");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--parallelism 0: the job needs at least one writer");
    }

    private static int run(StringWriter err, String... options) {
        String[] required = {"--container", "orders", "--store", "http://127.0.0.1:1", "--kafka", "127.0.0.1:1"};
        String[] args = new String[required.length + options.length];
        System.arraycopy(required, 0, args, 0, required.length);
        System.arraycopy(options, 0, args, required.length, options.length);
        return new CommandLine(new FlinkMirrorJob()).setErr(new PrintWriter(err, true)).execute(args);
    }
}
