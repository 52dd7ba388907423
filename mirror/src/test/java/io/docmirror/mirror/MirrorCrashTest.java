package io.docmirror.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once through crashes: a child process writes to the store (creates, replaces, patches, deletes, and items
 * with a TTL that the store's reaper expires) while its mirror daemon commits small batches; it is SIGKILLed at a
 * random moment, twenty times. Each time the mirror then catches up, and its current state must equal the store's
 * items exactly (every item at its newest LSN with its values and all its line items, no deleted item), plus the items
 * the store expired (a TTL delete leaves the mirror's row while the analytical TTL, here forever, keeps it); its
 * history must hold every change of the log exactly once.
 */
@Tag("slow")
class MirrorCrashTest {
    private static final int TRIALS = 20;

    @TempDir
    Path data;

    @Test
    void theMirrorEqualsTheStoreAfterEveryKill() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"), StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of("orders", "/customerId").withDefaultTtl(-1)
                    .withAnalyticalTtl(-1));
        }
        Random random = new Random(20261122);
        for (int trial = 0; trial < TRIALS; trial++) {
            Process worker = ChildProcesses.startJava(MirrorCrashWorker.class.getName(), "running", data.toString(),
                    Long.toString(random.nextLong()));
            Thread.sleep(300 + random.nextInt(1500));
            ChildProcesses.sigkill(worker);

            // No reaper here: the log must not grow between the sync and the comparison. Every change reaches the
            // history once, so a mirror the kill left empty replays the feed rather than loading a snapshot.
            try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"), StoreConfig.defaults(),
                    Clock.systemUTC(), false);
                 FeedMirror mirror = new FeedMirror(store, MirrorLayout.mirrorDirectory(data),
                         MirrorConfig.defaults().withSnapshotLoadAbove(-1), FlattenerConfig::defaults,
                         Clock.systemUTC())) {
                mirror.sync();
                assertMirrorEqualsStore(store, MirrorLayout.mirrorDirectory(data),
                        StoreTesting.changeLog(store, "orders").size(), "trial " + trial);
            }
        }
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"), StoreConfig.defaults(),
                Clock.systemUTC(), false)) {
            assertThat(StoreTesting.changeLog(store, "orders")).as("TTL deletes among the changes")
                    .filteredOn(ChangeEvent::ttlExpired).hasSizeGreaterThan(100);
        }
    }

    /**
     * The mirror of {@code orders} in {@code mirrorDirectory}, read through DuckDB, holds every item of the store at
     * its newest LSN with equal values and line items, and the last version of every item the store's TTL expired;
     * its history holds {@code historyRows} changes, none twice.
     */
    static void assertMirrorEqualsStore(EmbeddedStore store, Path mirrorDirectory, long historyRows, String trial)
            throws Exception {
        Map<String, ChangeEvent> mirrored = expectedMirror(StoreTesting.changeLog(store, "orders"));
        for (Item item : StoreTesting.allItems(store, "orders")) {
            assertThat(mirrored.get(item.id())).as(trial + ": the change log's last version of " + item.id())
                    .extracting(ChangeEvent::lsn).isEqualTo(item.lsn());
        }
        List<List<Object>> expectedRows = new ArrayList<>();
        long expectedItemRows = 0;
        for (ChangeEvent version : mirrored.values()) {
            JsonNode document = version.document().orElseThrow();
            expectedRows.add(Arrays.asList(version.id(), version.lsn(),
                    document.has("status") ? document.get("status").asText() : null,
                    document.get("amount").asText()));
            expectedItemRows += document.path("items").size();
        }
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            // Every value equal: the amount is a number, or text in its variant column when it was "n/a".
            assertThat(sql.rows("SELECT id, _lsn, status, coalesce(CAST(amount AS VARCHAR), amount__varchar) "
                    + "FROM orders")).as(trial)
                    .containsExactlyInAnyOrderElementsOf(expectedRows);
            assertThat(sql.value("SELECT count(*) FROM orders__items")).as(trial).isEqualTo(expectedItemRows);
            assertThat(sql.value("SELECT count(*) FROM orders_history")).as(trial).isEqualTo(historyRows);
            assertThat(sql.value("SELECT count(DISTINCT (_pk, _lsn)) FROM orders_history")).as(trial)
                    .isEqualTo(historyRows);
        }
    }

    /**
     * What the mirror must hold, by id (an id has one customer here): the last create, replace or patch of each item
     * not deleted by a user since. A TTL delete removes nothing: the analytical TTL decides how long the row stays.
     * Each id lives in one log partition, whose events come in LSN order.
     */
    private static Map<String, ChangeEvent> expectedMirror(List<ChangeEvent> changeLog) {
        Map<String, ChangeEvent> mirrored = new HashMap<>();
        for (ChangeEvent event : changeLog) {
            if (event.operation() != Operation.DELETE) {
                mirrored.put(event.id(), event);
            }
            else if (!event.ttlExpired()) {
                mirrored.remove(event.id());
            }
        }
        return mirrored;
    }
}
