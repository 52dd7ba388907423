package io.docmirror.mirror;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.TypePolicy;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.iceberg.ConflictEntry;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rebuilding a mirror's tables from its own history, with the store closed: nothing is read from it. */
class RebuildTest {
    private static final Function<String, FlattenerConfig> WELL_DEFINED =
            container -> FlattenerConfig.defaults(container).withTypePolicy(TypePolicy.WELL_DEFINED);

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private Path mirrorDirectory;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        mirrorDirectory = work.resolve("mirror");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aRebuildAfterAPolicyChangeAppliesTheNewPolicyToEveryVersionAndStreamingGoesOn() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","code":123,"items":[{"sku":"A","qty":1}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","code":"124","items":[{"sku":"B","qty":2}]}""");
        sync(FlattenerConfig::defaults);
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","code":125,"items":[{"sku":"C","qty":3}]}""");
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","code":"x","items":[]}""");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        sync(FlattenerConfig::defaults);
        ContainerSnapshot before = latest();
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            // Lossless: the text codes have a variant column of their own.
            assertThat(sql.rows("SELECT id, code, code__varchar FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", 125L, null), Arrays.asList("o3", null, "x"));
        }
        List<String> historyBefore = historyFiles();
        store.close();

        Rebuild.Result result = new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock)
                .run("orders", WELL_DEFINED.apply("orders"), changes -> { });

        assertThat(result.changes()).isEqualTo(5);
        ContainerSnapshot after = latest();
        // One commit replaced the tables: the next batch, at the same checkpoint, over the same history files.
        assertThat(batch(after)).isEqualTo(batch(before) + 1);
        assertThat(result.position()).isEqualTo("batch " + batch(after));
        assertThat(after.rootSnapshot().summary().get(MirrorSummary.CHECKPOINT))
                .isEqualTo(before.rootSnapshot().summary().get(MirrorSummary.CHECKPOINT));
        assertThat(historyFiles()).isEqualTo(historyBefore);
        // Well-defined (Cosmos DB's analytical store): the first type wins, other values become NULL and are counted.
        assertThat(conflicts(after)).extracting(ConflictEntry::jsonPath, ConflictEntry::keptType, ConflictEntry::seenType,
                ConflictEntry::count).containsExactly(org.assertj.core.groups.Tuple.tuple("$.code", "BIGINT",
                "VARCHAR", 2L));
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.columnNames("orders")).contains("code").doesNotContain("code__varchar");
            assertThat(sql.rows("SELECT id, code FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", 125L), Arrays.asList("o3", null));
            assertThat(sql.rows("SELECT _id, sku, qty FROM orders__items")).containsExactly(List.of("o1", "C", 3L));
            assertThat(sql.value("SELECT count(*) FROM orders_history")).isEqualTo(5L);
        }
        // The rebuild wrote the document index along with the tables: opening them reads no row.
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, "orders", WELL_DEFINED.apply("orders"),
                MirrorConfig.defaults())) {
            assertThat(tables.indexRebuilt()).isFalse();
            assertThat(tables.documents()).isEqualTo(2);
        }

        reopenStore();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","code":128,"items":[{"sku":"D","qty":4}]}""");
        store.createItem("orders", """
                {"id":"o4","customerId":"c3","code":"126","items":[]}""");
        store.createItem("orders", """
                {"id":"o5","customerId":"c3","code":127,"items":[]}""");
        // The saved schema is the rebuilt one: the old policy is refused now, the new one streams on.
        try (FeedMirror lossless = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                FlattenerConfig::defaults, clock)) {
            assertThatThrownBy(lossless::sync).hasMessageContaining("Cannot load schema of orders");
        }
        sync(WELL_DEFINED);
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT id, code FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", 128L), Arrays.asList("o3", null), Arrays.asList("o4", null),
                    Arrays.asList("o5", 127L));
            // The update found o1's rows where the rebuild put them.
            assertThat(sql.rows("SELECT _id, sku, qty FROM orders__items")).containsExactly(List.of("o1", "D", 4L));
        }
        assertThat(conflicts(latest()))
                .extracting(ConflictEntry::count).containsExactly(3L);
    }

    @Test
    void aRebuildUnderTheSameConfigurationChangesNoAnswer() throws Exception {
        RandomOrders orders = new RandomOrders(store, 5);
        for (int round = 0; round < 12; round++) {
            orders.writeRound(round);
            if (round % 3 == 2) {
                sync(FlattenerConfig::defaults);
            }
        }
        List<String> queries = List.of(
                "SELECT id, _pk, _lsn, status, total FROM orders ORDER BY id",
                "SELECT _id, _idx, sku, qty FROM orders__items ORDER BY _id, _idx",
                "SELECT id, _lsn, operation FROM orders_history ORDER BY _pk, id, _lsn");
        List<List<List<Object>>> before = answers(queries);
        store.close();

        new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock)
                .run("orders", FlattenerConfig.defaults("orders"), changes -> { });

        assertThat(answers(queries)).isEqualTo(before);
        assertThat(before.get(0)).isNotEmpty();
        reopenStore();
    }

    @Test
    void aTableIsFoundByNameAndAnUnknownOneIsRefused() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","items":[{"sku":"A"}]}""");
        sync(FlattenerConfig::defaults);
        Rebuild rebuild = new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock);

        assertThat(rebuild.containerOf("orders")).isEqualTo("orders");
        assertThat(rebuild.containerOf("orders__items")).isEqualTo("orders");
        assertThatThrownBy(() -> rebuild.containerOf("customers"))
                .hasMessage("Cannot rebuild table customers: no mirrored container in " + mirrorDirectory
                        + " has a table of that name");
    }

    @Test
    void aRebuildWhileTheDaemonHoldsTheMirrorIsRefusedAndChangesNothing() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","code":1}""");
        sync(FlattenerConfig::defaults);
        long batch = batch(latest());
        try (ContainerTables daemon = ContainerTables.open(mirrorDirectory, "orders",
                FlattenerConfig.defaults("orders"), MirrorConfig.defaults())) {
            assertThatThrownBy(() -> new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock)
                    .run("orders", WELL_DEFINED.apply("orders"), changes -> { }))
                    .hasMessageContaining("orders");
        }
        assertThat(batch(latest())).isEqualTo(batch);
    }

    private List<List<List<Object>>> answers(List<String> queries) throws Exception {
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            List<List<List<Object>>> answers = new java.util.ArrayList<>();
            for (String query : queries) {
                answers.add(sql.rows(query));
            }
            return answers;
        }
    }

    private ContainerSnapshot latest() {
        return MirrorFiles.latest(mirrorDirectory, "orders");
    }

    private static long batch(ContainerSnapshot snapshot) {
        return Long.parseLong(snapshot.rootSnapshot().summary().get(MirrorSummary.BATCH));
    }

    /** The history's data files: a rebuild replays the history, and keeps it as it is. */
    private List<String> historyFiles() {
        return MirrorFiles.liveFiles(mirrorDirectory, "orders", "orders_history").stream()
                .map(org.apache.iceberg.DataFile::location).sorted().toList();
    }

    /** The conflicts recorded on the root table, as the SQL endpoint's {@code docmirror_conflicts} shows them. */
    private static List<ConflictEntry> conflicts(ContainerSnapshot snapshot) throws Exception {
        return new ObjectMapper().readValue(snapshot.rootProperty(MirrorProperties.CONFLICTS).orElse("[]"),
                new TypeReference<List<ConflictEntry>>() { });
    }

    private void reopenStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
    }

    private void sync(Function<String, FlattenerConfig> flattenerConfigs) {
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(), flattenerConfigs,
                clock)) {
            mirror.sync();
        }
    }
}
