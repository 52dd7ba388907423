package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.iceberg.BackfillState;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Backfill snapshots a container into its tables, a commit per feed range, and hands over to the change feed at each
 * feed range's snapshot LSN: a backfilled mirror that streams on must answer exactly as one built from the whole change
 * feed, whatever was written during the backfill, and a backfill stopped midway must go on where it stopped.
 */
class BackfillTest {
    private static final MirrorConfig CONFIG = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "0", "mirror.backfill.readers", "2"));
    private static final List<String> QUERIES = List.of(
            "SELECT id, customerId, status, total FROM orders ORDER BY id",
            "SELECT _id, _idx, sku, qty FROM orders__items ORDER BY _id, _idx");

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private RandomOrders orders;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1)
                .withLogPartitions(4));
        orders = new RandomOrders(store, 5);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void writesDuringTheBackfillReachTheMirrorOnceThroughTheChangeFeed() throws Exception {
        for (int round = 0; round < 5; round++) {
            orders.writeRound(round);
        }
        Path backfilled = work.resolve("backfilled");
        // Every page the backfill writes, the application goes on writing: into ranges already snapshotted, being
        // read, and not read yet.
        int[] round = {5};
        Backfill.Result result = backfill(backfilled, new Backfill.Listener() {
            @Override
            public void itemsWritten(long items) {
                orders.writeRound(round[0]++);
            }

            @Override
            public void rangeCommitted(int feedRange, long lsn) {
                orders.writeRound(round[0]++);
            }
        });
        assertThat(round[0]).isGreaterThan(8);
        ContainerSnapshot snapshot = MirrorFiles.latest(backfilled, "orders");
        // Finished: no backfill state is left, and the snapshot wrote each document's current rows once, so no row
        // of its files is deleted.
        assertThat(snapshot.rootSnapshot().summary()).doesNotContainKey(BackfillState.SUMMARY_KEY);
        assertThat(snapshot.root().view().deletedRows()).isZero();
        assertThat(result.rangeLsns()).containsOnlyKeys(0, 1, 2, 3);
        // One commit per feed range, and one that hands over to the change feed.
        assertThat(result.position()).isEqualTo("batch 5");

        orders.writeRound(round[0]);
        Path streamed = work.resolve("streamed");
        sync(streamed);
        sync(backfilled);
        for (String query : QUERIES) {
            assertThat(MirrorSql.query(backfilled, "orders", query)).as(query).isEqualTo(MirrorSql.query(streamed, "orders", query)).isNotEmpty();
        }
        // No version reached the mirror twice: the snapshot's and the feed's histories meet without overlap.
        assertThat(MirrorSql.query(backfilled, "orders", "SELECT id, _lsn, count(*) FROM orders_history GROUP BY ALL HAVING count(*) > 1"))
                .isEmpty();
    }

    @Test
    void aBackfillStoppedMidwayGoesOnWithTheRangesItHadNotDone() throws Exception {
        Path mirror = backfillStoppedAfterItsFirstRange();
        try (ContainerTables tables = ContainerTables.open(mirror, "orders", FlattenerConfig.defaults("orders"),
                CONFIG)) {
            assertThat(tables.backfill().orElseThrow().rangeLsns()).containsOnlyKeys(0);
        }
        // A mirror that reads the store over HTTP, which gives no snapshots, must not stream on from a half-done
        // snapshot: it says how to finish it.
        try (StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
                HttpStoreClient remote = new HttpStoreClient(server.baseUri(), Optional.empty());
                FeedMirror overHttp = new FeedMirror(remote, mirror, CONFIG, FlattenerConfig::defaults, clock)) {
            assertThatThrownBy(overHttp::sync).isInstanceOfSatisfying(MirrorException.class,
                            failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.BACKFILL_UNFINISHED))
                    .hasMessageContaining("Cannot mirror container orders: its backfill has not finished (1 of 4 "
                            + "feed ranges done); run `docmirror backfill --container orders` again");
        }

        orders.writeRound(4);
        Backfill.Result resumed = backfill(mirror, Backfill.Listener.NONE);
        assertThat(resumed.rangesResumed()).isEqualTo(1);

        orders.writeRound(5);
        Path streamed = work.resolve("streamed");
        sync(streamed);
        sync(mirror);
        for (String query : QUERIES) {
            assertThat(MirrorSql.query(mirror, "orders", query)).as(query).isEqualTo(MirrorSql.query(streamed, "orders", query));
        }
    }

    @Test
    void aSyncWithTheStoreAtHandFinishesALoadAKilledProcessBegan() throws Exception {
        Path mirror = backfillStoppedAfterItsFirstRange();
        orders.writeRound(4);

        FeedMirror.SyncResult result;
        try (FeedMirror daemon = new FeedMirror(store, mirror, CONFIG, FlattenerConfig::defaults, clock)) {
            result = daemon.sync();
        }
        // The three ranges left were read from a snapshot, and range 0's changes since its snapshot from the feed.
        assertThat(result.documentsLoaded()).isPositive();
        assertThat(result.events()).isPositive();

        orders.writeRound(5);
        Path streamed = work.resolve("streamed");
        sync(streamed);
        sync(mirror);
        for (String query : QUERIES) {
            assertThat(MirrorSql.query(mirror, "orders", query)).as(query)
                    .isEqualTo(MirrorSql.query(streamed, "orders", query));
        }
    }

    @Test
    void aBackfillOverAnExistingMirrorReplacesItsTablesInOneCommitWithoutChangingAnyAnswer() throws Exception {
        Path mirror = work.resolve("mirror");
        for (int round = 0; round < 3; round++) {
            orders.writeRound(round);
            sync(mirror);
        }
        long before = MirrorFiles.batch(mirror, "orders");
        List<String> filesBefore = MirrorFiles.dataFiles(mirror, "orders", "orders");

        Backfill.Result result = backfill(mirror, Backfill.Listener.NONE);

        assertThat(result.position()).isEqualTo("batch " + (before + 1));
        assertThat(MirrorFiles.latest(mirror, "orders").rootSnapshot().summary())
                .containsEntry(MirrorSummary.COMMIT_KIND, "backfill").containsKey(MirrorSummary.HISTORY_FROM);
        assertThat(MirrorFiles.dataFiles(mirror, "orders", "orders")).doesNotContainAnyElementsOf(filesBefore);
        // The history holds each document once, as of the snapshot: what a first backfill gives.
        Path snapshot = work.resolve("snapshot");
        backfill(snapshot, Backfill.Listener.NONE);
        assertThat(MirrorSql.query(mirror, "orders", "SELECT count(*) FROM orders_history"))
                .isEqualTo(MirrorSql.query(snapshot, "orders", "SELECT count(*) FROM orders_history"));
        orders.writeRound(3);
        sync(mirror);

        Path streamed = work.resolve("streamed");
        sync(streamed);
        for (String query : QUERIES) {
            assertThat(MirrorSql.query(mirror, "orders", query)).as(query)
                    .isEqualTo(MirrorSql.query(streamed, "orders", query));
        }
    }

    @Test
    void aFeedPositionLostToRetentionStopsTheMirrorUntilABackfillMendsIt() throws Exception {
        Path mirror = work.resolve("mirror");
        orders.writeRound(0);
        sync(mirror);
        long before = MirrorFiles.batch(mirror, "orders");
        for (int round = 1; round < 4; round++) {
            orders.writeRound(round);
        }
        // The mirror was stopped while the log kept only the last 5 changes per feed range.
        reopenKeepingFiveChangesPerFeedRange();

        assertThatThrownBy(() -> sync(mirror)).isInstanceOfSatisfying(MirrorException.class,
                        failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.POSITION_LOST))
                .hasMessageStartingWith("Cannot mirror container orders any further: Cannot read feed range orders[")
                .hasMessageContaining("retention has passed")
                .hasMessageEndingWith("The mirror stops at batch " + before + " rather than skip those "
                        + "changes: run `docmirror backfill --container orders` to snapshot the container again, and "
                        + "the daemon streams on from the snapshot.");
        assertThat(MirrorFiles.batch(mirror, "orders")).isEqualTo(before);
        // It stays stopped: a later sync does not skip the lost changes either.
        assertThatThrownBy(() -> sync(mirror)).hasMessageContaining("retention has passed");

        backfill(mirror, Backfill.Listener.NONE);
        orders.writeRound(4);
        sync(mirror);
        Path snapshot = work.resolve("snapshot");
        backfill(snapshot, Backfill.Listener.NONE);
        for (String query : QUERIES) {
            assertThat(MirrorSql.query(mirror, "orders", query)).as(query)
                    .isEqualTo(MirrorSql.query(snapshot, "orders", query)).isNotEmpty();
        }
    }

    @Test
    void aFirstMirrorOfAChangeLogThatRetentionTrimmedIsLoadedFromASnapshot() throws Exception {
        for (int round = 0; round < 4; round++) {
            orders.writeRound(round);
        }
        reopenKeepingFiveChangesPerFeedRange();

        // Far fewer changes than mirror.initial-load.snapshot-above-events, but replaying them would start after
        // the changes retention removed: the first sync loads a snapshot instead.
        Path mirror = work.resolve("mirror");
        FeedMirror.SyncResult result;
        try (FeedMirror daemon = new FeedMirror(store, mirror, CONFIG, FlattenerConfig::defaults, clock)) {
            result = daemon.sync();
        }
        assertThat(result.documentsLoaded()).isPositive();
        orders.writeRound(4);
        sync(mirror);
        Path snapshot = work.resolve("snapshot");
        backfill(snapshot, Backfill.Listener.NONE);
        for (String query : QUERIES) {
            assertThat(MirrorSql.query(mirror, "orders", query)).as(query)
                    .isEqualTo(MirrorSql.query(snapshot, "orders", query)).isNotEmpty();
        }
    }

    @Test
    void refusesAContainerThatIsNotMirrored() {
        store.createContainer(ContainerProperties.of("plain", "/pk"));

        assertThatThrownBy(() -> new Backfill(store, work.resolve("mirror"), CONFIG, FlattenerConfig.defaults("plain"), clock)
                .run("plain", Backfill.Listener.NONE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot backfill container plain: it is not mirrored (its analytical TTL is off); set "
                        + "its analytical TTL to -1 or a number of seconds first");
    }

    /** Reopens the store with a change log that keeps the last 5 changes per feed range, and trims it so. */
    private void reopenKeepingFiveChangesPerFeedRange() {
        store.close();
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false)
                .withChangeLogRetention(-1, 5), clock, false);
        orders = new RandomOrders(store, 6);
        assertThat(store.trimChangeLog(1000)).isPositive();
    }

    /** Four rounds of orders, and a backfill of them that stops after committing feed range 0; its mirror. */
    private Path backfillStoppedAfterItsFirstRange() {
        for (int round = 0; round < 4; round++) {
            orders.writeRound(round);
        }
        Path mirror = work.resolve("mirror");
        assertThatThrownBy(() -> backfill(mirror, new Backfill.Listener() {
            @Override
            public void rangeCommitted(int feedRange, long lsn) {
                throw new IllegalStateException("stopped after feed range " + feedRange);
            }
        })).hasMessageContaining("stopped after feed range 0");
        return mirror;
    }

    private Backfill.Result backfill(Path mirrorDirectory, Backfill.Listener listener) throws InterruptedException {
        return new Backfill(store, mirrorDirectory, CONFIG, FlattenerConfig.defaults("orders"), clock).run("orders",
                listener);
    }

    private void sync(Path mirrorDirectory) {
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, CONFIG, FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }
}
