package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.mirror.MirrorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs every benchmark with tiny parameters so that none can rot. Figures here mean nothing. */
class BenchmarkSmokeTest {
    @TempDir
    Path work;

    @Test
    void importBenchmarkRuns() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImportBenchmark.Result result = ImportBenchmark.run(3000, work, new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(result.storeDocsPerSecond()).isPositive();
        assertThat(result.rawDocsPerSecond()).isPositive();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("ratio docmirror / twice-written bound", "CPU per document");
    }

    @Test
    void httpBenchmarkRuns() throws Exception {
        var phases = HttpBenchmark.run(2, Duration.ofMillis(600), work, new PrintStream(new ByteArrayOutputStream(),
                true, StandardCharsets.UTF_8));

        assertThat(phases).hasSize(7).allSatisfy(phase -> assertThat(phase.operations()).isPositive());
    }

    @Test
    void sqlQueryBenchmarkRuns() throws Exception {
        var timings = SqlQueryBenchmark.run(300, work, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));

        assertThat(timings).hasSize(4).allSatisfy(timing -> assertThat(timing.ratio()).isPositive());
    }

    @Test
    void steadyStateQueryBenchmarkRuns() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SteadyStateQueryBenchmark.Result result = SteadyStateQueryBenchmark.run(300, Duration.ofSeconds(2), 50,
                Duration.ofSeconds(1), Map.of(), work, new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(result.rounds()).isEqualTo(2);
        assertThat(result.updates()).isPositive();
        assertThat(result.newOrders()).isPositive();
        assertThat(result.latencies()).hasSize(4).allSatisfy(latency -> {
            assertThat(latency.mirrorP50()).isPositive().isLessThanOrEqualTo(latency.mirrorP95());
            assertThat(latency.cleanP50()).isPositive().isLessThanOrEqualTo(latency.cleanP95());
        });
        for (var timings : List.of(result.atRest(), result.afterLoad(), result.stress())) {
            assertThat(timings).hasSize(4).allSatisfy(timing -> assertThat(timing.ratio()).isPositive());
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("superseded", "compactions so far");
    }

    @Test
    void flightTransferBenchmarkRuns() throws Exception {
        FlightTransferBenchmark.Result result = FlightTransferBenchmark.run(200, work, new PrintStream(
                new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        assertThat(result.rows()).isGreaterThan(200);
        assertThat(result.flightRowsPerSecond()).isPositive();
    }

    @Test
    void feedBenchmarkRuns() throws Exception {
        FeedBenchmark.Result result = FeedBenchmark.run(3000, work, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));

        assertThat(result.rawEventsPerSecond()).isPositive();
        assertThat(result.feedEventsPerSecond()).isPositive();
    }

    @Test
    void freshnessBenchmarkRuns() throws Exception {
        FreshnessBenchmark.Result result = FreshnessBenchmark.run(new int[] {300}, Duration.ofSeconds(1), 500, work, MirrorConfig.defaults(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        assertThat(result.phases()).singleElement().satisfies(phase -> {
            assertThat(phase.documents()).isPositive();
            assertThat(phase.p50()).isPositive().isLessThanOrEqualTo(phase.p99());
        });
        assertThat(result.capacity().mirrorRate()).isPositive();
    }

    @Test
    void derivationBenchmarkRuns() throws Exception {
        DerivationBenchmark.Result result = DerivationBenchmark.run(400, work,
                Path.of("..", "docs", "examples", "customers-orders-items.yaml"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        assertThat(result.events()).isEqualTo(400);
        assertThat(result.derivedEventsPerSecond()).isPositive();
        assertThat(result.targetWritesPerSecond()).isGreaterThan(result.derivedEventsPerSecond());
        assertThat(result.storeWritesPerSecond()).isPositive();
        assertThat(result.sourceAfter().itemBytes()).isLessThan(result.sourceBefore().itemBytes());
    }

    @Test
    void kafkaPublishBenchmarkRuns() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"))) {
            KafkaPublishBenchmark.Result result = KafkaPublishBenchmark.run(2000, broker.bootstrapServers(), work,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

            assertThat(result.plainEventsPerSecond()).isPositive();
            assertThat(result.publisherEventsPerSecond()).isPositive();
        }
    }

    @Test
    void sparkBackfillBenchmarkRuns() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // It checks each mirror's tables itself, and throws when one holds other rows than the single machine's.
        SparkBackfillBenchmark.run(300, work, 2, new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Spark backfill local[1]: 300 documents",
                "Spark backfill local[2]: 300 documents", "root.parquet: 300 rows", "history.parquet: 300 rows");
    }

    @Test
    void backfillBenchmarkRuns() throws Exception {
        BackfillBenchmark.Result result = BackfillBenchmark.run(500, work, new PrintStream(new ByteArrayOutputStream(),
                true, StandardCharsets.UTF_8));

        assertThat(result.documents()).isEqualTo(500);
        assertThat(result.duckDbRows()).isEqualTo(500);
        // Orders, their line items and the history: more rows than documents.
        assertThat(result.mirrorRows()).isGreaterThan(1000);
        assertThat(result.peakHeapBytes()).isPositive();
        assertThat(result.peakLiveHeapBytes()).isPositive().isLessThanOrEqualTo(result.peakHeapBytes());
        assertThat(result.historyBytes()).isPositive().isLessThan(result.mirrorBytes());
    }

    @Test
    void flattenBenchmarkRuns() {
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        var results = FlattenBenchmark.run(500, 1, work, out);
        var allocations = FlattenBenchmark.allocation(20_000, out);

        assertThat(results).singleElement().satisfies(result -> {
            assertThat(result.parseNanos()).isPositive();
            assertThat(result.tokensNanos()).isPositive();
            assertThat(result.flattenNanos()).isPositive();
        });
        assertThat(allocations).hasSize(1).allSatisfy(allocation ->
                assertThat(allocation.bytesPerDocument()).isPositive());
    }

    @Test
    void generatorIsDeterministicAndAboutOneKilobyte() {
        OrderGenerator generator = new OrderGenerator(42, 1000);
        long bytes = 0;
        for (int index = 0; index < 1000; index++) {
            bytes += generator.order(index).length;
        }
        assertThat(new OrderGenerator(42, 1000).order(17)).isEqualTo(generator.order(17));
        assertThat(bytes / 1000).isBetween(700L, 1500L);
        assertThat(new String(generator.order(5), StandardCharsets.UTF_8))
                .contains("\"customerId\":\"" + generator.customerId(5) + "\"");
    }
}
