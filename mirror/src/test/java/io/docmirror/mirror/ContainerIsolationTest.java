package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every container the store allows is mirrored, the longest legal name included, and a container that cannot be
 * mirrored for now never holds the others back, in {@code sync} or in the daemon.
 */
class ContainerIsolationTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** A legal container name of the greatest length, with every character a name may hold. */
    private static final String LONGEST_NAME = "C0" + "a.b_c-".repeat(41) + "xyz1234";

    @TempDir
    Path work;

    private EmbeddedStore store;
    private Path mirrorDirectory;

    @BeforeEach
    void openStore() {
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false));
        mirrorDirectory = work.resolve("mirror");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aContainerWithTheLongestLegalNameIsMirroredBesideTheOthersAndFoundAgainAfterARestart() throws Exception {
        assertThat(LONGEST_NAME).hasSize(ContainerProperties.MAX_ID_LENGTH);
        store.createContainer(ContainerProperties.of(LONGEST_NAME, "/customerId").withAnalyticalTtl(-1));
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        // Its child table's name is the container's with a suffix, longer than a file name may be.
        store.createItem(LONGEST_NAME, "{\"id\":\"o1\",\"customerId\":\"c1\",\"items\":[{\"sku\":\"A\",\"qty\":2}]}");
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"items\":[{\"sku\":\"B\",\"qty\":1}]}");

        assertThat(sync().events()).isEqualTo(2);
        store.createItem(LONGEST_NAME, "{\"id\":\"o2\",\"customerId\":\"c2\",\"items\":[{\"sku\":\"C\",\"qty\":3}]}");
        FeedMirror.SyncResult restarted = sync();

        assertThat(restarted.events()).as("the restarted mirror goes on from its committed batch").isEqualTo(1);
        assertThat(MirrorFiles.batch(mirrorDirectory, LONGEST_NAME)).isEqualTo(2);
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, LONGEST_NAME)) {
            assertThat(sql.rows("SELECT _id, sku, qty FROM \"" + LONGEST_NAME + "__items\" ORDER BY _id"))
                    .containsExactly(List.of("o1", "A", 2L), List.of("o2", "C", 3L));
        }
        assertThat(MirrorSql.query(mirrorDirectory, "orders", "SELECT _id, sku FROM orders__items"))
                .containsExactly(List.of("o1", "B"));
        try (Stream<Path> files = Files.walk(mirrorDirectory)) {
            assertThat(files.map(file -> mirrorDirectory.relativize(file)).flatMap(ContainerIsolationTest::names))
                    .allSatisfy(name -> assertThat(name.getBytes(StandardCharsets.UTF_8).length)
                            .as(name).isLessThanOrEqualTo(255));
        }
    }

    @Test
    void aContainerThatCannotBeMirroredDoesNotStopASyncOfTheOthers() throws Exception {
        store.createContainer(ContainerProperties.of("blocked", "/customerId").withAnalyticalTtl(-1));
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        store.createItem("blocked", "{\"id\":\"b1\",\"customerId\":\"c1\"}");
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");

        try (ContainerTables holder = holdMirror("blocked")) {
            assertThatThrownBy(this::sync).isInstanceOfSatisfying(MirrorException.class,
                            failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.MIRROR_LOCKED))
                    .hasMessageContaining("blocked");
        }

        assertThat(MirrorSql.query(mirrorDirectory, "orders", "SELECT id FROM orders")).containsExactly(List.of("o1"));
        assertThat(ContainerSnapshot.read(mirrorDirectory, "blocked")).isEmpty();
        assertThat(sync().events()).as("the blocked container, once free").isEqualTo(1);
    }

    @Test
    void theDaemonGoesOnWithTheOtherContainersAndTakesUpTheFailedOneWhenItCan() throws Exception {
        store.createContainer(ContainerProperties.of("blocked", "/customerId").withAnalyticalTtl(-1));
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        store.createItem("blocked", "{\"id\":\"b1\",\"customerId\":\"c1\"}");
        ContainerTables holder = holdMirror("blocked");
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (FeedMirror daemon = newMirror()) {
            Future<?> running = thread.submit(() -> {
                daemon.run();
                return null;
            });
            store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");

            await(running, "orders is mirrored while blocked fails", () -> rootRows("orders"),
                    () -> rootRows("orders") == 1);
            await(running, "the daemon reports why blocked is not mirrored", () -> health(daemon, "blocked"),
                    () -> health(daemon, "blocked").failure() != null);
            assertThat(health(daemon, "blocked").failure()).contains("blocked");
            assertThat(health(daemon, "blocked").failureCode()).as("not retriable: another process holds it")
                    .isEqualTo(MirrorErrorCode.MIRROR_LOCKED);

            holder.close();
            await(running, "blocked is mirrored once it is free", () -> rootRows("blocked"),
                    () -> rootRows("blocked") == 1);
            await(running, "the failure is over", () -> health(daemon, "blocked"),
                    () -> health(daemon, "blocked").failure() == null);
            assertThat(health(daemon, "blocked").failureCode()).isNull();
            store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\"}");
            await(running, "orders goes on", () -> rootRows("orders"), () -> rootRows("orders") == 2);
            daemon.stop();
            running.get(30, TimeUnit.SECONDS);
        } finally {
            holder.close();
            thread.shutdownNow();
        }
    }

    @Test
    void aFailedCompactionIsCountedAndTheDaemonGoesOnMirroring() throws Exception {
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        MirrorConfig neverCompacts = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0"));
        for (int order = 1; order <= 2; order++) { // two small data files in the root table
            store.createItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c1\"}");
            try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, neverCompacts, FlattenerConfig::defaults,
                    Clock.systemUTC())) {
                mirror.sync();
            }
        }
        // A data file lost from the disk: compaction, which reads every file of the table, cannot run.
        Files.delete(LocalFileIO.pathOf(MirrorFiles.dataFiles(mirrorDirectory, "orders", "orders").get(0)));
        long batchBefore = MirrorFiles.batch(mirrorDirectory, "orders");

        ExecutorService thread = Executors.newSingleThreadExecutor();
        MirrorConfig compactsAtTwoFiles = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "2",
                "mirror.batch.max-interval-ms", "10"));
        try (FeedMirror daemon = new FeedMirror(store, mirrorDirectory, compactsAtTwoFiles, FlattenerConfig::defaults,
                Clock.systemUTC())) {
            Future<?> running = thread.submit(() -> {
                daemon.run();
                return null;
            });
            await(running, "the failed compaction is counted", daemon::activity,
                    () -> daemon.activity().stream().mapToLong(MirrorActivity::compactionFailures).sum() > 0);
            store.createItem("orders", "{\"id\":\"o3\",\"customerId\":\"c1\"}");
            await(running, "a new change is committed after it", () -> MirrorFiles.batch(mirrorDirectory, "orders"),
                    () -> MirrorFiles.batch(mirrorDirectory, "orders") > batchBefore);
            daemon.stop();
            running.get(30, TimeUnit.SECONDS);
            assertThat(daemon.activity()).singleElement().satisfies(activity -> {
                assertThat(activity.compactionFailures()).as("tried once, again only a minute later").isEqualTo(1);
                assertThat(activity.compactions()).isZero();
            });
        } finally {
            thread.shutdownNow();
        }
    }

    private FeedMirror newMirror() {
        return new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults().withBatch(50_000, Duration.ofMillis(10)),
                FlattenerConfig::defaults, Clock.systemUTC());
    }

    private FeedMirror.SyncResult sync() {
        try (FeedMirror mirror = newMirror()) {
            return mirror.sync();
        }
    }

    /** The container's tables, opened and locked as another process would hold them. */
    private ContainerTables holdMirror(String container) {
        return ContainerTables.open(mirrorDirectory, container, FlattenerConfig.defaults(container),
                MirrorConfig.defaults());
    }

    /** How many rows the container's root table has now; 0 before its first commit. */
    private long rootRows(String container) {
        return ContainerSnapshot.read(mirrorDirectory, container).map(snapshot -> {
            try (MirrorSql sql = MirrorSql.open(snapshot, OptionalLong.empty())) {
                return (Long) sql.value("SELECT count(*) FROM \"" + snapshot.root().name() + "\"");
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }).orElse(0L);
    }

    private static MirrorHealth health(FeedMirror daemon, String container) {
        return daemon.health().stream().filter(health -> health.container().equals(container)).findFirst()
                .orElse(MirrorHealth.healthy(container));
    }

    /** Waits (bounded) until {@code condition} holds, or fails with what {@code seen} gave last. */
    private static void await(Future<?> daemon, String what, Supplier<Object> seen, BooleanSupplier condition)
            throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (daemon.isDone()) {
                daemon.get();
                throw new AssertionError("The daemon stopped before: " + what);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + WAIT + ": " + what + "; saw " + seen.get());
            }
            Thread.sleep(50);
        }
    }

    private static Stream<String> names(Path relative) {
        return Stream.iterate(relative, path -> path != null, Path::getParent)
                .map(path -> path.getFileName() == null ? "" : path.getFileName().toString());
    }
}
