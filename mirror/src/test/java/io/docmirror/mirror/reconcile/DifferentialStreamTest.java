package io.docmirror.mirror.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.Rebuild;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestData;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The safety net for any change to how the mirror stores its tables: real datasets replayed as streams of creates,
 * upserts, replaces, patches (one path taking every type in turn: int, double, decimal, string, object, array and
 * back), deletes and TTL expiries, mirrored in many small commits with compactions, a rebuild, and a daemon killed
 * with SIGKILL in the middle of its work. After every step a reconcile must find the mirror exact: every value of
 * every current document, read back through the views and rebuilt from the columns' JSON paths, equals the store's,
 * and the history equals the change log.
 *
 * <p>Seeded and reproducible: a failure names its seed, and {@code -Ddocmirror.differential.seed=N} runs that seed
 * again. {@code -Ddocmirror.differential.steps=N} and {@code -Ddocmirror.differential.documents=N} make a long
 * soak run of the default, short one.
 */
@Tag("slow")
class DifferentialStreamTest {
    private static final long SEED = Long.getLong("docmirror.differential.seed", 20261124L);
    /**
     * Steps of a dataset: one kills the daemon, one rebuilds the tables, each other one syncs, with a compaction or
     * without in turn. Six make a short run that meets every kind of step in every dataset; more steps add more of
     * the same commits on grown tables (a soak run's job).
     */
    private static final int STEPS = Integer.getInteger("docmirror.differential.steps", 6);
    private static final int DOCUMENTS = Integer.getInteger("docmirror.differential.documents", 80);
    private static final String CONTAINER = "stream";
    /** The values one path takes in turn, so that its column widens and its values move to variant columns. */
    private static final List<String> SHAPES = List.of("1", "2.5", "0.1234567890123456789", "12345678901234567890123",
            "\"text\"", "{\"a\":1,\"b\":[1,2]}", "[1,\"x\",null]", "true", "null", "-0.0", "7");

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(Instant.now().getEpochSecond());
    private Random random;
    private List<ObjectNode> dataset;
    private int nextDocument;
    /** The documents the store holds: partition key, id. */
    private final List<String[]> live = new ArrayList<>();
    /** Documents that expired in the store, whose rows the mirror keeps. */
    private int expired;

    private static final List<String> DATASETS = List.of("mongo_restaurant", "mongo_books", "osv_vulns",
            "usgs_earthquakes", "nobel_laureates", "json_schema_test_suite", "world_countries_geojson", "vega_budget");

    static List<String> datasets() {
        return DATASETS;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("datasets")
    void everyStepReconcilesExactly(String datasetName) throws Exception {
        assertThat(STEPS).as("docmirror.differential.steps: a kill and a rebuild take a step each").isGreaterThan(1);
        long seed = SEED ^ datasetName.hashCode();
        random = new Random(seed);
        dataset = readDataset(datasetName);
        Path storeDirectory = work.resolve("store");
        Path mirrorDirectory = work.resolve("mirror");
        // Every dataset takes a kill and a rebuild, at two different steps.
        int killAt = random.nextInt(STEPS);
        int rebuildAt = (killAt + 1 + random.nextInt(STEPS - 1)) % STEPS;
        EmbeddedStore store = open(storeDirectory);
        store.createContainer(ContainerProperties.of(CONTAINER, "/pk").withDefaultTtl(-1).withAnalyticalTtl(-1));
        List<String> done = new ArrayList<>();
        // The syncs compact in turn, so that every dataset meets both.
        boolean compactsFirst = random.nextBoolean();
        int syncs = 0;
        try {
            for (int step = 0; step < STEPS; step++) {
                String context = "dataset " + datasetName + ", seed " + SEED + " (run again with "
                        + "-Ddocmirror.differential.seed=" + SEED + "), step " + step + " after " + done;
                writeSomeChanges(store, 3 + random.nextInt(25));
                String action;
                if (step == killAt) {
                    store.close();
                    action = killDaemonMidway(storeDirectory, mirrorDirectory);
                    store = open(storeDirectory);
                    sync(store, mirrorDirectory, false);
                } else if (step == rebuildAt) {
                    sync(store, mirrorDirectory, false);
                    new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock).run(CONTAINER,
                            FlattenerConfig.defaults(CONTAINER), changes -> { });
                    action = "rebuild";
                } else {
                    boolean compact = (syncs++ % 2 == 0) == compactsFirst;
                    sync(store, mirrorDirectory, compact);
                    action = compact ? "sync+compact" : "sync";
                }
                done.add(action);
                ReconcileReport report = new Reconciler(store, mirrorDirectory, clock, 5).reconcile(CONTAINER);
                assertThat(report.differences()).as("%s: %s", context, report).isEmpty();
                assertThat(report.exact()).isTrue();
                assertThat(report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum())
                        .as(context).isEqualTo(live.size() + expired);
            }
        } finally {
            store.close();
        }
    }

    /** Random creates, upserts, replaces, patches, deletes and TTL expiries of the dataset's documents. */
    private void writeSomeChanges(EmbeddedStore store, int changes) {
        for (int change = 0; change < changes; change++) {
            int kind = live.isEmpty() ? 0 : random.nextInt(10);
            switch (kind) {
                case 0, 1, 2 -> create(store, null);
                case 3 -> {
                    String[] key = live.get(random.nextInt(live.size()));
                    store.upsertItem(CONTAINER, document(key[1], key[0], null).toString());
                }
                case 4 -> {
                    String[] key = live.get(random.nextInt(live.size()));
                    store.replaceItem(CONTAINER, PartitionKey.of(key[0]), key[1],
                            document(key[1], key[0], null).toString());
                }
                case 5, 6 -> {
                    String[] key = live.get(random.nextInt(live.size()));
                    String shape = SHAPES.get(random.nextInt(SHAPES.size()));
                    store.patchItem(CONTAINER, PartitionKey.of(key[0]), key[1], List.of(
                            PatchOperation.set("/shape", json(shape)),
                            PatchOperation.set("/nested", json("{\"deep\":" + shape + "}"))));
                }
                case 7 -> {
                    String[] key = live.remove(random.nextInt(live.size()));
                    store.deleteItem(CONTAINER, PartitionKey.of(key[0]), key[1]);
                }
                case 8 -> expire(store);
                default -> create(store, null);
            }
        }
    }

    private void create(EmbeddedStore store, Integer ttl) {
        String id = "d" + nextDocument;
        String partitionKey = "p" + nextDocument % 7;
        nextDocument++;
        store.createItem(CONTAINER, document(id, partitionKey, ttl).toString());
        if (ttl == null) {
            live.add(new String[] {partitionKey, id});
        }
    }

    /** A short-lived document that expires in the store, as a TTL delete the mirror keeps the row of. */
    private void expire(EmbeddedStore store) {
        create(store, 1);
        clock.advanceSeconds(2);
        assertThat(store.reapExpired(1000)).isPositive();
        expired++;
    }

    private ObjectNode document(String id, String partitionKey, Integer ttl) {
        ObjectNode body = dataset.get(random.nextInt(dataset.size())).deepCopy();
        body.put("id", id);
        body.put("pk", partitionKey);
        if (ttl != null) {
            body.put("ttl", ttl);
        } else {
            body.remove("ttl");
        }
        return body;
    }

    private void sync(EmbeddedStore store, Path mirrorDirectory, boolean compact) {
        MirrorConfig config = MirrorConfig.fromProperties(Map.of("mirror.compaction.files",
                compact ? "2" : "0")).withBatch(1 + random.nextInt(7), Duration.ofHours(1));
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, config, FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }

    /**
     * Starts the daemon in a process of its own, waits until it has committed a batch (or has nothing to do),
     * kills it with SIGKILL, and catches up in this process.
     */
    private String killDaemonMidway(Path storeDirectory, Path mirrorDirectory) throws Exception {
        long before = latestBatch(mirrorDirectory);
        Process daemon = ChildProcesses.startJava(DifferentialDaemon.class.getName(), "running",
                storeDirectory.toString(), mirrorDirectory.toString());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        // A poll reads the catalog's pointers (one SQLite query); the batch number only once they moved, since
        // reading it plans a scan of every table.
        Map<TableIdentifier, String> pointers = CatalogPointers.read(mirrorDirectory).locations();
        while (daemon.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(5);
            Map<TableIdentifier, String> now = CatalogPointers.read(mirrorDirectory).locations();
            if (!now.equals(pointers)) {
                if (latestBatch(mirrorDirectory) > before) {
                    break;
                }
                pointers = now;
            }
        }
        long seen = latestBatch(mirrorDirectory);
        ChildProcesses.sigkill(daemon);
        assertThat(seen).as("the daemon committed a batch before it was killed (it was at %d)", before)
                .isGreaterThan(before);
        return "kill at batch " + seen;
    }

    /** The mirror's last commit: its batch number (0: none yet). */
    private long latestBatch(Path mirrorDirectory) {
        return ContainerSnapshot.read(mirrorDirectory, CONTAINER).map(tables -> Long.parseLong(
                tables.rootSnapshot().summary().get(MirrorSummary.BATCH))).orElse(0L);
    }

    private EmbeddedStore open(Path directory) {
        return EmbeddedStore.open(directory, StoreConfig.defaults().withSyncWrites(false), clock, false);
    }

    private List<ObjectNode> readDataset(String name) throws IOException {
        List<ObjectNode> documents = new ArrayList<>();
        try (Stream<String> lines = Files.lines(TestData.file(name + ".jsonl"), StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines.limit(DOCUMENTS)::iterator) {
                documents.add((ObjectNode) json(line));
            }
        }
        assertThat(documents).as("documents of %s", name).isNotEmpty();
        return documents;
    }

    private static JsonNode json(String text) {
        try {
            return StoreJson.mapper().readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
