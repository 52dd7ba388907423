package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reading a container's change feed (all versions and deletes, from the beginning) against raw iteration of the same
 * change-log column family with RocksDB, in the same run. Usage: {@code FeedBenchmark [events] [workDir]}.
 */
public final class FeedBenchmark {
    private static final int PAGE = 1000;

    private FeedBenchmark() {
    }

    public record Result(long events, double rawEventsPerSecond, double feedEventsPerSecond) {
        public double ratio() {
            return feedEventsPerSecond / rawEventsPerSecond;
        }
    }

    public static void main(String[] args) throws Exception {
        long events = args.length > 0 ? Long.parseLong(args[0]) : 500_000;
        Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("docmirror-feed-bench");
        run(events, work, System.out);
    }

    public static Result run(long events, Path work, PrintStream out) throws Exception {
        Path directory = work.resolve("feed-store");
        OrderGenerator generator = new OrderGenerator(42, Math.max(1, (int) (events / 10)));
        try (EmbeddedStore store = EmbeddedStore.open(directory, StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("orders", "/customerId"));
            for (long start = 0; start < events; start += 5000) {
                List<byte[]> batch = new ArrayList<>();
                for (long index = start; index < Math.min(events, start + 5000); index++) {
                    batch.add(generator.order(index));
                }
                store.bulkWrite("orders", batch, BulkOptions.CREATE);
            }
        }
        out.printf(Locale.ROOT, "Wrote %,d orders (one CREATE event each) to %s%n", events, directory);

        // Warm-up of both paths on the first events, then the measured passes. Each pass times only its reading, not
        // the opening of the database, which differs (read-only against read-write with recovery) and happens once.
        raw(directory, Math.min(events, 50_000));
        feed(directory, Math.min(events, 50_000));
        Pass raw = raw(directory, Long.MAX_VALUE);
        Pass feed = feed(directory, Long.MAX_VALUE);

        Result result = new Result(events, raw.eventsPerSecond(), feed.eventsPerSecond());
        out.printf(Locale.ROOT, "%-52s %12s%n", "", "events/s");
        out.printf(Locale.ROOT, "%-52s %,12.0f%n", "raw RocksDB iteration of the change log (reference)",
                result.rawEventsPerSecond());
        out.printf(Locale.ROOT, "%-52s %,12.0f%n", "change feed, all versions and deletes, pages of " + PAGE,
                result.feedEventsPerSecond());
        out.printf(Locale.ROOT, "ratio feed / raw: %.2f (target >= 0.5)%n", result.ratio());
        if (raw.events() != events || feed.events() != events) {
            throw new IllegalStateException("Expected " + events + " events, raw read " + raw.events() + ", feed "
                    + feed.events());
        }
        return result;
    }

    /** Events read and the nanoseconds the reading took. */
    private record Pass(long events, long nanos) {
        double eventsPerSecond() {
            return events / (nanos / 1e9);
        }
    }

    /** Iterates the change-log column family, touching every key and value byte array. */
    private static Pass raw(Path directory, long limit) throws Exception {
        RocksDB.loadLibrary();
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        for (byte[] name : RocksDB.listColumnFamilies(new org.rocksdb.Options(), directory.toString())) {
            descriptors.add(new ColumnFamilyDescriptor(name));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        long count = 0;
        long bytes = 0;
        try (DBOptions options = new DBOptions();
                RocksDB db = RocksDB.openReadOnly(options, directory.toString(), descriptors, handles)) {
            ColumnFamilyHandle changeLog = null;
            for (int index = 0; index < descriptors.size(); index++) {
                if (new String(descriptors.get(index).getName(), StandardCharsets.UTF_8).equals("change-log")) {
                    changeLog = handles.get(index);
                }
            }
            long start = System.nanoTime();
            try (RocksIterator iterator = db.newIterator(changeLog)) {
                for (iterator.seekToFirst(); iterator.isValid() && count < limit; iterator.next()) {
                    bytes += iterator.key().length + iterator.value().length;
                    count++;
                }
            }
            long nanos = System.nanoTime() - start;
            if (bytes == 0 && count > 0) {
                throw new IllegalStateException("empty change log entries");
            }
            return new Pass(count, nanos);
        } finally {
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    /** Reads the change feed from the beginning until caught up (or {@code limit} events). */
    private static Pass feed(Path directory, long limit) {
        long count = 0;
        try (EmbeddedStore store = EmbeddedStore.open(directory, StoreConfig.defaults())) {
            long start = System.nanoTime();
            ChangeFeedReader reader = ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                    StartFrom.beginning());
            ChangeFeedPage page;
            do {
                page = reader.readNext(PAGE);
                count += page.events().size();
            } while (!page.caughtUp() && count < limit);
            return new Pass(count, System.nanoTime() - start);
        }
    }
}
