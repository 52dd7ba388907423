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

    @Test
    void anOptionOfAnotherToolIsRefusedWithoutItsValue() {
        StringWriter err = new StringWriter();
        int exit = run(err, "--mirror", dir.toString(), "--conf", "kafka.sasl.password=secret");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--conf kafka.sasl.password: the job takes mirror.* and flatten.* "
                + "options only").doesNotContain("secret");
    }

    @Test
    void anUnknownMirrorOptionIsRefused() {
        StringWriter err = new StringWriter();
        int exit = run(err, "--mirror", dir.toString(), "--conf", "mirror.no-such-option=1");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--conf ").contains("mirror.no-such-option");
    }

    private static int run(StringWriter err, String... options) {
        String[] required = {"--container", "orders", "--store", "http://127.0.0.1:1", "--kafka", "127.0.0.1:1"};
        String[] args = new String[required.length + options.length];
        System.arraycopy(required, 0, args, 0, required.length);
        System.arraycopy(options, 0, args, required.length, options.length);
        return new CommandLine(new FlinkMirrorJob()).setErr(new PrintWriter(err, true)).execute(args);
    }
}
