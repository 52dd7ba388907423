package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.TypePolicy;
import io.docmirror.mirror.iceberg.ConflictEntry;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
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
        Manifest before = latest();
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            // Lossless: the text codes have a variant column of their own.
            assertThat(sql.rows("SELECT id, code, code__varchar FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", 125L, null), Arrays.asList("o3", null, "x"));
        }
        store.close();

        Rebuild.Result result = new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock)
                .run("orders", WELL_DEFINED.apply("orders"), changes -> { });

        assertThat(result.changes()).isEqualTo(5);
        Manifest after = latest();
        assertThat(after.version()).isEqualTo(before.version() + 1);
        assertThat(after.checkpoint()).isEqualTo(before.checkpoint());
        assertThat(after.history()).isEqualTo(before.history());
        // Well-defined (Cosmos DB's analytical store): the first type wins, other values become NULL and are counted.
        assertThat(after.conflicts()).extracting(ConflictEntry::jsonPath, ConflictEntry::keptType, ConflictEntry::seenType,
                ConflictEntry::count).containsExactly(org.assertj.core.groups.Tuple.tuple("$.code", "BIGINT",
                "VARCHAR", 2L));
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.columnNames("orders")).contains("code").doesNotContain("code__varchar");
            assertThat(sql.rows("SELECT id, code FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", 125L), Arrays.asList("o3", null));
            assertThat(sql.rows("SELECT _id, sku, qty FROM orders__items")).containsExactly(List.of("o1", "C", 3L));
            assertThat(sql.value("SELECT count(*) FROM orders_history")).isEqualTo(5L);
        }

        reopenStore();
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
                    Arrays.asList("o1", 125L), Arrays.asList("o3", null), Arrays.asList("o4", null),
                    Arrays.asList("o5", 127L));
        }
        assertThat(new ManifestStore(mirrorDirectory.resolve("orders")).latest().orElseThrow().conflicts())
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
        long version = latest().version();
        try (ContainerMirror daemon = ContainerMirror.open(mirrorDirectory, "orders", -1,
                FlattenerConfig.defaults("orders"), MirrorConfig.defaults(), clock)) {
            assertThatThrownBy(() -> new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock)
                    .run("orders", WELL_DEFINED.apply("orders"), changes -> { }))
                    .hasMessageContaining("orders");
        }
        assertThat(latest().version()).isEqualTo(version);
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

    private Manifest latest() {
        return new ManifestStore(mirrorDirectory.resolve("orders")).latest().orElseThrow();
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
