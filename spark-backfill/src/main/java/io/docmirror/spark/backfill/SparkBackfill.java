package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.SchemaPlan;
import io.docmirror.flatten.SchemaScan;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.iceberg.BackfillInParts;
import io.docmirror.mirror.iceberg.RemoteWriteTarget;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.iceberg.PartWriter;
import io.docmirror.mirror.iceberg.WrittenPart;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.SnapshotInterval;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.http.RemoteSnapshot;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * A container's backfill as a Spark job, for a container too big for one machine: the tables it makes are exactly
 * the ones {@code docmirror backfill} makes of the same snapshot, committed in one catalog commit, and
 * {@code docmirror mirror run} streams on from the snapshot with no gap and no duplicate.
 *
 * <p>The driver asks the store to hold one snapshot of the container and cuts each feed range into parts. The
 * executors then work part by part, in two stages: they scan the parts for the schema, so that the driver's
 * {@link SchemaPlan} knows (or, after one round, guesses) the schema each part starts from, the schema a single
 * flattener of the whole container has there; and they write each part's data files, from its start, into the
 * tables' storage ({@link PartWriter}). A write from a wrong guess is found out, discarded, and done again once the
 * plan has settled. The driver, which holds the container's mirror directory and its lock, commits every part in
 * one batch ({@link BackfillInParts}): until then readers see the mirror as it was, and a job that fails or is
 * killed leaves it so. A task that fails removes what it wrote; what a killed executor or driver leaves is removed as
 * an orphan by the next run or the daemon's upkeep.
 */
public final class SparkBackfill {
    private static final Logger log = LoggerFactory.getLogger(SparkBackfill.class);

    private final JavaSparkContext spark;
    private final Path mirrorDirectory;
    private final MirrorConfig mirrorConfig;
    private final FlattenerConfig flattenerConfig;
    private final Clock clock;

    /**
     * What a backfill did.
     *
     * @param parts how many parts the feed ranges were cut into: tasks of each stage
     * @param schemaRounds how many rounds of scans the schema took
     * @param rangeLsns where the change feed goes on from, per feed range
     * @param position the commit that holds the backfill ({@code batch 42})
     */
    public record Result(String container, long documents, int parts, int schemaRounds,
            Map<Integer, Long> rangeLsns, String position) {
        public Result {
            rangeLsns = Collections.unmodifiableMap(new TreeMap<>(rangeLsns));
        }
    }

    /**
     * @param mirrorDirectory the mirror's directory on the driver: its catalog settings, the container's lock
     * @param flattenerConfig how the container's documents are flattened
     */
    public SparkBackfill(JavaSparkContext spark, Path mirrorDirectory, MirrorConfig mirrorConfig,
            FlattenerConfig flattenerConfig, Clock clock) {
        this.spark = requireNonNull(spark, "spark is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.mirrorConfig = requireNonNull(mirrorConfig, "mirrorConfig is null");
        this.flattenerConfig = requireNonNull(flattenerConfig, "flattenerConfig is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Backfills {@code container} from the store at {@code store}, each feed range cut into at most
     * {@code partsPerRange} parts.
     *
     * @throws IllegalArgumentException when the container is not mirrored (analytical TTL off)
     */
    public Result run(StoreAddress store, String container, int partsPerRange) {
        return run(store, container, partsPerRange, UnaryOperator.identity());
    }

    /** As {@link #run(StoreAddress, String, int)}, reading the parts through {@code reading} (a test's faults). */
    Result run(StoreAddress store, String container, int partsPerRange, UnaryOperator<ContainerParts> reading) {
        if (partsPerRange < 1) {
            throw new IllegalArgumentException("A feed range is cut into at least one part, not " + partsPerRange);
        }
        try (HttpStoreClient client = store.client()) {
            ContainerProperties properties = Backfill.requireMirrored(client.readContainer(container));
            try (RemoteSnapshot snapshot = client.createSnapshot(container)) {
                Map<Integer, Long> rangeLsns = new TreeMap<>();
                List<SnapshotInterval> intervals = new ArrayList<>();
                for (int range = 0; range < snapshot.logPartitions(); range++) {
                    rangeLsns.put(range, snapshot.lsn(range));
                    intervals.addAll(snapshot.split(range, partsPerRange));
                }
                log.info("Backfilling {} from snapshot {} of {}: {} feed ranges in {} parts", container,
                        snapshot.id(), store, rangeLsns.size(), intervals.size());
                ContainerParts parts = reading.apply(new SnapshotParts(store, container, snapshot.id(), intervals));
                return backfill(properties, parts, rangeLsns);
            }
        }
    }

    /**
     * One round of scans, then rounds of writes from the plan's starts: after one round the starts are guesses,
     * exact for containers whose documents look alike, and the write checks them ({@link BackfillInParts#fits}).
     * When a guess was wrong, the write is discarded, the plan learns from it as from a round of scans, and scans
     * until it settles; the next write is then exact.
     */
    private Result backfill(ContainerProperties properties, ContainerParts parts, Map<Integer, Long> rangeLsns) {
        String container = properties.id();
        SchemaPlan plan = new SchemaPlan(flattenerConfig, parts.count());
        scan(container, parts, plan);
        while (true) {
            Result result = write(properties, parts, plan, rangeLsns);
            if (result != null) {
                return result;
            }
            while (!plan.settled()) {
                scan(container, parts, plan);
            }
        }
    }

    /** Writes every part from the plan's starts and commits them; null when a start was a wrong guess. */
    private Result write(ContainerProperties properties, ContainerParts parts, SchemaPlan plan,
            Map<Integer, Long> rangeLsns) {
        String container = properties.id();
        try (ContainerTables tables = ContainerTables.openForReplacingBackfill(mirrorDirectory, properties,
                flattenerConfig, mirrorConfig, clock)) {
            // What a killed run left goes first, as the daemon's first upkeep would remove it.
            tables.removeOrphanFiles();
            BackfillInParts backfill = tables.beginBackfillInParts(plan);
            try {
                Broadcast<RemoteWriteTarget> target = spark.broadcast(backfill.target());
                spark.setJobDescription(writingDescription(container, plan.parts()));
                long started = System.nanoTime();
                boolean guessed = !plan.settled();
                List<WrittenPart> written = spark.parallelize(starts(plan, allParts(plan.parts())), plan.parts())
                        .map(start -> write(parts, target.value(), start, guessed))
                        .collect();
                log.info("Wrote the {} parts of {} in {} s", plan.parts(), container, seconds(started));
                int wrong = guessed ? firstMisfit(backfill, written) : -1;
                if (wrong >= 0) {
                    log.info("Part {} of {} ended elsewhere than the schema plan guessed part {} starts: the parts "
                            + "are written again once the plan has settled", wrong, container, wrong + 1);
                    List<SchemaScan.Result> learned = new ArrayList<>();
                    plan.partsToScan().forEach(part -> learned.add(written.get(part).asScan()));
                    written.forEach(backfill::discard);
                    backfill.abort();
                    plan.scanned(learned);
                    return null;
                }
                for (int part = 0; part < written.size(); part++) {
                    backfill.add(part, written.get(part));
                }
                backfill.commit(rangeLsns);
            } catch (RuntimeException e) {
                try {
                    backfill.abort();
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            log.info("Backfilled {}: {} documents in {} parts, committed as {}", container, backfill.documents(),
                    plan.parts(), tables.position());
            return new Result(container, backfill.documents(), plan.parts(), plan.rounds(), rangeLsns,
                    tables.position());
        }
    }

    /** The first part that does not end where the next starts; -1 when all do. */
    private static int firstMisfit(BackfillInParts backfill, List<WrittenPart> written) {
        for (int part = 0; part < written.size(); part++) {
            if (!backfill.fits(part, written.get(part))) {
                return part;
            }
        }
        return -1;
    }

    /** One round of scans of the parts whose start changed, on the executors. */
    private void scan(String container, ContainerParts parts, SchemaPlan plan) {
        List<PartStart> starts = starts(plan, plan.partsToScan());
        spark.setJobDescription("docmirror backfill of " + container + ": the schema, round " + (plan.rounds() + 1)
                + ", " + starts.size() + " parts");
        long started = System.nanoTime();
        plan.scanned(spark.parallelize(starts, starts.size())
                .map(start -> scan(parts, container, start))
                .collect());
        log.info("The schema of {}: round {} scanned {} parts in {} s, {} to scan again", container, plan.rounds(),
                starts.size(), seconds(started), plan.partsToScan().size());
    }

    private static String seconds(long startedNanos) {
        return String.format(Locale.ROOT, "%.1f", (System.nanoTime() - startedNanos) / 1e9);
    }

    /**
     * The description of the job that writes the parts, as Spark's UI shows it and its tasks read it
     * ({@code spark.job.description}).
     */
    static String writingDescription(String container, int parts) {
        return "docmirror backfill of " + container + ": writing " + parts + " parts";
    }

    private static List<PartStart> starts(SchemaPlan plan, List<Integer> parts) {
        return parts.stream().map(part -> new PartStart(part, plan.startOf(part))).toList();
    }

    private static List<Integer> allParts(int count) {
        List<Integer> parts = new ArrayList<>(count);
        for (int part = 0; part < count; part++) {
            parts.add(part);
        }
        return parts;
    }

    /** On an executor: the part's schema-changing documents, from its start. */
    private static SchemaScan.Result scan(ContainerParts parts, String container, PartStart start) {
        SchemaScan scan = new SchemaScan(start.start(), SchemaCodec.fromJson(start.start()).config());
        parts.read(start.part(), document -> scan.add(container, document.partitionKey().jsonText(),
                document.lsn(), document.documentJson().orElseThrow()));
        return scan.result();
    }

    /** On an executor: the part's data files, written from its start. */
    private static WrittenPart write(ContainerParts parts, RemoteWriteTarget target, PartStart start, boolean guessed) {
        try (PartWriter writer = new PartWriter(target, start.start(), guessed)) {
            parts.read(start.part(), writer::add);
            return writer.finish();
        }
    }
}
