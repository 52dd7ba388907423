package io.docmirror.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.docmirror.demo.OrderGenerator;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.feed.derive.Derivation;
import io.docmirror.feed.derive.DerivationConfig;
import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.feed.derive.TargetMapping;
import io.docmirror.feed.processor.ProcessorOptions;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.ContainerUsage;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.ItemPage;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.changelog.ChangeEvent;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The seed scenario of controlled redundancy at scale: a year of orders in {@code CustomersOrdersAndItems} with a
 * six-month TTL, derived into Customers, Orders and Items by docs/examples/customers-orders-items.yaml. Prints the
 * derivation's throughput next to the change feed's own read rate over the same events (with and without parsing
 * the documents, which the derivation must do), and the source container's size on disk before and after the TTL
 * expiry. The store runs with its default, fsync before acknowledging each write.
 * Usage: {@code DerivationBenchmark [orders] [workDir] [derivations.yaml]}.
 */
public final class DerivationBenchmark {
    private static final String SOURCE = "CustomersOrdersAndItems";
    private static final int SIX_MONTHS_SECONDS = (int) Duration.ofDays(182).toSeconds();
    private static final Instant YEAR_START = Instant.parse("2025-01-01T00:00:00Z");
    private static final int BULK = 1000;

    private DerivationBenchmark() {
    }

    /**
     * @param targetWritesPerSecond target documents written or deleted by the derivation per second
     * @param storeWritesPerSecond the store's own bulk upsert rate for the same target documents, the write ceiling
     */
    public record Result(long events, double feedEventsPerSecond, double feedParsedEventsPerSecond,
            double derivedEventsPerSecond, double targetWritesPerSecond, double storeWritesPerSecond,
            ContainerUsage sourceBefore, ContainerUsage sourceAfter) {
        public double ratio() {
            return derivedEventsPerSecond / feedParsedEventsPerSecond;
        }

        public double writeRatio() {
            return targetWritesPerSecond / storeWritesPerSecond;
        }
    }

    /** The benchmark's clock: set to each order's moment as the year is written, then past the TTL. */
    private static final class SettableClock extends Clock {
        private volatile Instant now;

        SettableClock(Instant start) {
            this.now = start;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("UTC only");
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("docmirror-derive-bench");
        Path config = args.length > 2 ? Path.of(args[2]) : Path.of("docs", "examples", "customers-orders-items.yaml");
        run(orders, work, config, System.out);
    }

    public static Result run(int orders, Path work, Path config, PrintStream out) throws Exception {
        List<Derivation> derivations = DerivationConfig.fromConfig(
                new ObjectMapper(new YAMLFactory()).readTree(config.toFile()).path("derivations"));
        SettableClock clock = new SettableClock(YEAR_START);
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("derive-store"), StoreConfig.defaults(), clock,
                false)) {
            store.createContainer(ContainerProperties.of(SOURCE, "/customerId").withDefaultTtl(SIX_MONTHS_SECONDS)
                    .withAnalyticalTtl(-1));
            writeAYear(store, clock, orders);
            out.printf(Locale.ROOT, "Wrote %,d orders placed over 2025 into %s (TTL six months)%n", orders, SOURCE);

            FeedPass feed = readFeed(store, false);
            FeedPass parsed = readFeed(store, true);
            long started = System.nanoTime();
            long derived;
            long targetWrites;
            try (DerivationRunner runner = new DerivationRunner(store, derivations,
                    name -> ProcessorOptions.defaults(name, "bench"), clock)) {
                derived = runner.catchUp();
                targetWrites = runner.status().stream()
                        .mapToLong(status -> status.documentsWritten() + status.documentsDeleted()).sum();
            }
            double derivedSeconds = (System.nanoTime() - started) / 1e9;
            if (derived != feed.events()) {
                throw new IllegalStateException("Derived " + derived + " changes of " + feed.events());
            }
            StoreWritePass storeWrites = rewriteTargets(store, derivations);

            ContainerUsage before = store.containerUsage(SOURCE);
            clock.set(YEAR_START.plus(Duration.ofDays(366)));
            long expired = 0;
            for (int reaped; (reaped = store.reapExpired(10_000)) > 0; ) {
                expired += reaped;
            }
            ContainerUsage after = store.containerUsage(SOURCE);

            Result result = new Result(feed.events(), feed.eventsPerSecond(), parsed.eventsPerSecond(),
                    derived / derivedSeconds, targetWrites / derivedSeconds, storeWrites.documentsPerSecond(), before,
                    after);
            out.printf(Locale.ROOT, "%-62s %12s %14s%n", "", "events/s", "target docs/s");
            out.printf(Locale.ROOT, "%-62s %,12.0f%n", "change feed read, all versions and deletes (reference)",
                    result.feedEventsPerSecond());
            out.printf(Locale.ROOT, "%-62s %,12.0f%n", "change feed read + parse each document (reference)",
                    result.feedParsedEventsPerSecond());
            out.printf(Locale.ROOT, "%-62s %12s %,14.0f%n", "store bulk upsert of the derived documents (reference)",
                    "", result.storeWritesPerSecond());
            out.printf(Locale.ROOT, "%-62s %,12.0f %,14.0f%n",
                    "derivation into Customers, Orders, Items (fsync per batch)", result.derivedEventsPerSecond(),
                    result.targetWritesPerSecond());
            out.printf(Locale.ROOT, "%,d target writes for %,d source changes (%.1f each)%n", targetWrites, derived,
                    (double) targetWrites / derived);
            out.printf(Locale.ROOT, "ratio derivation / parsed feed read (events): %.3f%n", result.ratio());
            out.printf(Locale.ROOT, "ratio derivation / store bulk upsert (target docs): %.3f%n", result.writeRatio());
            out.printf(Locale.ROOT, "%nTTL expiry: %,d of %,d orders older than six months removed%n", expired, orders);
            out.printf(Locale.ROOT, "%-30s %16s %16s%n", SOURCE + " on disk", "items (bytes)", "change log (bytes)");
            out.printf(Locale.ROOT, "%-30s %,16d %,16d%n", "before the expiry", before.itemBytes(),
                    before.changeLogBytes());
            out.printf(Locale.ROOT, "%-30s %,16d %,16d%n", "after the expiry", after.itemBytes(),
                    after.changeLogBytes());
            for (String target : List.of("Customers", "Orders", "Items")) {
                out.printf(Locale.ROOT, "%-30s %,16d %,16d%n", target + " (kept)",
                        store.containerUsage(target).itemBytes(), store.containerUsage(target).changeLogBytes());
            }
            return result;
        }
    }

    private static void writeAYear(EmbeddedStore store, SettableClock clock, int orders) {
        OrderGenerator generator = new OrderGenerator(42, Math.max(1, orders / 5));
        Duration step = Duration.ofDays(365).dividedBy(orders);
        for (int start = 0; start < orders; start += BULK) {
            List<byte[]> batch = new ArrayList<>(BULK);
            for (int index = start; index < Math.min(orders, start + BULK); index++) {
                Instant placedAt = YEAR_START.plus(step.multipliedBy(index));
                batch.add(generator.order(index, placedAt));
            }
            clock.set(YEAR_START.plus(step.multipliedBy(start)));
            store.bulkWrite(SOURCE, batch, BulkOptions.CREATE);
        }
    }

    private record StoreWritePass(long documents, long nanos) {
        double documentsPerSecond() {
            return documents / (nanos / 1e9);
        }
    }

    /**
     * The write ceiling: every derived document upserted again, in bulks of {@value #BULK}, into a copy of its
     * container (same partition key), straight through the store's bulk write with no derivation around it.
     */
    private static StoreWritePass rewriteTargets(EmbeddedStore store, List<Derivation> derivations) {
        List<String> targets = derivations.stream()
                .flatMap(derivation -> derivation.targets().stream().map(TargetMapping::container)).toList();
        long documents = 0;
        long nanos = 0;
        for (String target : targets) {
            ContainerProperties properties = store.readContainer(target);
            String copy = target + "-rewrite";
            store.createContainer(ContainerProperties.of(copy, properties.partitionKeyPath()));
            for (int range = 0; range < properties.logPartitions(); range++) {
                Optional<String> continuation = Optional.empty();
                do {
                    ItemPage page = store.scanItems(target, range, continuation, BULK);
                    List<byte[]> batch = page.items().stream().map(item -> item.json().getBytes(StandardCharsets.UTF_8))
                            .toList();
                    long started = System.nanoTime();
                    store.bulkWrite(copy, batch, BulkOptions.UPSERT);
                    nanos += System.nanoTime() - started;
                    documents += batch.size();
                    continuation = page.continuation();
                } while (continuation.isPresent());
            }
        }
        return new StoreWritePass(documents, nanos);
    }

    private record FeedPass(long events, long nanos) {
        double eventsPerSecond() {
            return events / (nanos / 1e9);
        }
    }

    private static FeedPass readFeed(EmbeddedStore store, boolean parse) {
        long started = System.nanoTime();
        long events = 0;
        long fields = 0;
        ChangeFeedReader reader = ChangeFeedReader.open(store, SOURCE, ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning());
        while (true) {
            ChangeFeedPage page = reader.readNext(1000);
            for (ChangeEvent event : page.events()) {
                events++;
                if (parse) {
                    fields += event.document().map(document -> document.size()).orElse(0);
                }
            }
            if (page.caughtUp()) {
                break;
            }
        }
        if (parse && fields == 0 && events > 0) {
            throw new IllegalStateException("Parsed no fields");
        }
        return new FeedPass(events, System.nanoTime() - started);
    }
}
