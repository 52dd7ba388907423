package io.docmirror.flink;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@link FlinkStreamBenchmark} with tiny parameters so that it cannot rot (bench's BenchmarkSmokeTest does the
 * same for bench's). Figures here mean nothing. Slow: a Kafka broker and three Flink jobs take a minute.
 */
@Tag("slow")
class FlinkStreamBenchmarkSmokeTest {
    @TempDir
    Path work;

    @Test
    void flinkStreamBenchmarkRuns() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FlinkStreamBenchmark.Result result = new FlinkStreamBenchmark(work, Duration.ofMillis(300),
                new PrintStream(out, true, StandardCharsets.UTF_8)).run(1000, 1, 200, Duration.ofSeconds(2));

        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("round 1 ratios", "load after");
        for (FlinkStreamBenchmark.CatchUp catchUp : new FlinkStreamBenchmark.CatchUp[] {result.mirrorRun(),
                result.parallelism1(), result.parallelism2()}) {
            assertThat(catchUp.sustained()).as("%s in:%n%s", catchUp.engine(), printed).isPositive();
            assertThat(catchUp.cpuSeconds()).as("%s in:%n%s", catchUp.engine(), printed).isPositive();
        }
        for (FlinkStreamBenchmark.Freshness freshness : new FlinkStreamBenchmark.Freshness[] {
                result.mirrorRunFreshness(), result.parallelism2Freshness()}) {
            assertThat(freshness.changes()).as("%s in:%n%s", freshness.engine(), printed).isPositive();
            assertThat(freshness.p50()).as("%s in:%n%s", freshness.engine(), printed).isPositive()
                    .isLessThanOrEqualTo(freshness.p99());
        }
    }
}
