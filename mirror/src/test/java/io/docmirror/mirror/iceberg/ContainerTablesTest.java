package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.Rebuild;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mirror of a container as Iceberg tables, fed from a real store's change feed: Iceberg's own reader, which
 * applies the deletion vectors, must return exactly the store's current documents, in the root and the child table,
 * after updates, deletes and restarts.
 */
class ContainerTablesTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);

    @TempDir
    Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private Path mirrorDirectory;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ORDERS);
        mirrorDirectory = work.resolve("mirror");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void updatesAndDeletesLeaveOnlyTheCurrentRowsInEveryTableAcrossRestarts() throws IOException {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","status":"new","total":10,
                 "items":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","status":"new","total":5,"items":[{"sku":"C","qty":1}]}""");
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","status":"new","total":7,"items":[]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","status":"shipped","total":10,"items":[{"sku":"B","qty":2}],
                 "note":"a new column"}""");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        sync();
        // Each sync opens the tables afresh: where each document's rows are is read back from them every time.
        // o3 changes twice inside one batch: only its last version stays, in root and child tables alike.
        store.upsertItem("orders", """
                {"id":"o3","customerId":"c1","status":"packed","total":7,"items":[{"sku":"D","qty":4}]}""");
        store.upsertItem("orders", """
                {"id":"o3","customerId":"c1","status":"sent","total":7,"items":[{"sku":"E","qty":5}]}""");
        sync();

        assertThat(read("orders", "id", "status", "total", "note")).containsExactlyInAnyOrder(
                List.of("o1", "shipped", 10L, "a new column"),
                listOf("o3", "sent", 7L, null));
        assertThat(read("orders__items", "_id", "sku", "qty")).containsExactlyInAnyOrder(
                List.of("o1", "B", 2L), List.of("o3", "E", 5L));
        assertThat(read("orders_history", "id", "operation")).hasSize(7);
        assertThat(oneVectorAtMostPerDataFile("orders")).isTrue();
        assertThat(oneVectorAtMostPerDataFile("orders__items")).isTrue();

        try (ContainerTables tables = open()) {
            assertThat(tables.documents()).isEqualTo(2);
        }
    }

    /**
     * The document index is on disk and reflects the last commit: opening the tables again reads no row to know where
     * the documents are (it used to read every key column of every table at each start). An index that reflects no
     * commit it can catch up from (lost, or left behind by a backfill) is rebuilt from the tables.
     */
    @Test
    void theDocumentIndexIsUsedAsItIsWhenItReflectsTheLastCommitAndRebuiltWhenNot() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":5,"items":[{"sku":"C","qty":1}]}""");
        sync();
        try (ContainerTables tables = open()) {
            assertThat(tables.indexRebuilt()).isFalse();
            assertThat(tables.documents()).isEqualTo(2);
        }
        try (DocumentIndex index = DocumentIndex.open(MirrorLayout.containerDirectory(mirrorDirectory, "orders")
                .resolve("document-index"), DocumentIndexTest.NO_FILES)) {
            index.unmark();
        }
        try (ContainerTables tables = open()) {
            assertThat(tables.indexRebuilt()).isTrue();
            assertThat(tables.documents()).isEqualTo(2);
        }
        // The rebuilt index knows the rows: an update replaces them everywhere.
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":11,"items":[{"sku":"D","qty":4}]}""");
        sync();
        assertThat(read("orders", "id", "total")).containsExactlyInAnyOrder(List.of("o1", 11L), List.of("o2", 5L));
        assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o1", "D"),
                List.of("o2", "C"));
        try (ContainerTables tables = open()) {
            assertThat(tables.indexRebuilt()).isFalse();
        }
    }

    /**
     * A writer that fails right after the catalog took its batch leaves the index one commit behind, with the
     * commit's changes recorded: opening the tables applies them, reading no row, and the next update finds the rows.
     */
    @Test
    void anIndexTheCatalogsCommitLeftBehindCatchesUpWithoutReadingTheTables() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A","qty":1}]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":11,"items":[{"sku":"B","qty":2},{"sku":"C","qty":3}]}""");
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, "orders",
                FlattenerConfig.defaults("orders"), MirrorConfig.defaults(), (step, table) -> {
                    if (step == CommitStep.CATALOG_COMMITTED) {
                        throw new IllegalStateException("the writer stops right after the catalog commit");
                    }
                })) {
            assertThatThrownBy(() -> FeedSync.sync(store, ORDERS, tables))
                    .hasMessageContaining("the writer stops right after the catalog commit");
        }

        try (ContainerTables tables = open()) {
            assertThat(tables.indexRebuilt()).isFalse();
            assertThat(tables.batches()).isEqualTo(2);
        }
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":12,"items":[{"sku":"D","qty":4}]}""");
        sync();
        assertThat(read("orders", "id", "total")).containsExactly(List.of("o1", 12L));
        assertThat(read("orders__items", "_id", "sku")).containsExactly(List.of("o1", "D"));
    }

    @Test
    void aWidenedColumnIsReplacedAndItsValuesCopiedExactly() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"scores":[1,2],"items":[{"sku":"A","qty":1}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":9007199254740993,"items":[{"sku":"B","qty":2}]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":12,"scores":[3],"items":[{"sku":"A","qty":1}]}""");
        // BIGINT to DECIMAL(38,2): 9007199254740993 is no double, so DOUBLE would round it.
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","total":10.25,"scores":[1.5],"items":[{"sku":"C","qty":2.5}]}""");
        sync();

        assertThat(read("orders", "id", "total", "scores")).containsExactlyInAnyOrder(
                List.of("o1", new BigDecimal("12.00"), List.of(3.0)),
                listOf("o2", new BigDecimal("9007199254740993.00"), null),
                List.of("o3", new BigDecimal("10.25"), List.of(1.5)));
        assertThat(read("orders__items", "_id", "sku", "qty")).containsExactlyInAnyOrder(
                List.of("o1", "A", 1.0), List.of("o2", "B", 2.0), List.of("o3", "C", 2.5));
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            // A replaced column keeps its place, as the flattener orders the columns.
            assertThat(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")).schema().columns()
                    .stream().map(Types.NestedField::name).toList())
                    .containsExactly("id", "_pk", "_ts", "_lsn", "_etag", "_is_deleted", "_rid", "customerId", "total",
                            "scores");
        }

        // The moved rows are where the mirror thinks they are: the next update of each replaces them.
        store.upsertItem("orders", """
                {"id":"o2","customerId":"c2","total":1,"items":[]}""");
        store.deleteItem("orders", PartitionKey.of("c1"), "o3");
        sync();
        assertThat(read("orders", "id", "total")).containsExactlyInAnyOrder(
                List.of("o1", new BigDecimal("12.00")), List.of("o2", new BigDecimal("1.00")));
        assertThat(read("orders__items", "_id", "sku")).containsExactly(List.of("o1", "A"));
    }

    @Test
    void aRebuildUnderAnotherConfigurationReplacesEveryFlattenedTableInOneCommit() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","a":{"b":{"c":1}},"items":[{"sku":"A"},{"sku":"B"}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","a":{"b":{"c":2}},"items":[]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","a":{"b":{"c":3}},"items":[{"sku":"C"}]}""");
        sync();

        FlattenerConfig shallow = FlattenerConfig.fromProperties("orders", Map.of("flatten.max-depth", "1"));
        Rebuild.Result result = new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock).run("orders", shallow, changes -> { });

        assertThat(result.position()).isEqualTo("batch 3");
        assertThat(read("orders", "id", "a")).containsExactlyInAnyOrder(List.of("o1", "{\"b\":{\"c\":3}}"),
                List.of("o2", "{\"b\":{\"c\":2}}"));
        assertThat(read("orders__items", "_id", "sku")).containsExactly(List.of("o1", "C"));
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            assertThat(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")).schema().findField(
                    "a__b__c")).as("the deep column is gone with the old schema").isNull();
        }
        // The daemon streams on under the new configuration.
        store.upsertItem("orders", """
                {"id":"o2","customerId":"c2","a":{"b":{"c":4}},"items":[{"sku":"D"}]}""");
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, "orders", shallow,
                MirrorConfig.defaults());
                ChangeSource source = EmbeddedFeedSource.open(store, ORDERS, tables.checkpoint())) {
            ContainerBatch batch = tables.begin();
            source.read(1000).events().forEach(batch::add);
            batch.commit(source.checkpoint());
        }
        assertThat(read("orders", "id", "a")).containsExactlyInAnyOrder(List.of("o1", "{\"b\":{\"c\":3}}"),
                List.of("o2", "{\"b\":{\"c\":4}}"));
        assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o1", "C"),
                List.of("o2", "D"));
    }

    @Test
    void aRestartResumesAfterTheCheckpointInTheLastSnapshotSummary() throws IOException {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","items":[{"sku":"A"}]}""");
        sync();
        store.createItem("orders", """
                {"id":"o2","customerId":"c1","items":[{"sku":"B"}]}""");
        sync();
        sync();

        assertThat(read("orders", "id")).containsExactlyInAnyOrder(List.of("o1"), List.of("o2"));
        assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o1", "A"),
                List.of("o2", "B"));
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            Table root = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders"));
            assertThat(root.currentSnapshot().summary())
                    .containsEntry(MirrorSummary.BATCH, "3")
                    .containsKeys(MirrorSummary.CHECKPOINT, MirrorSummary.FLATTENER_SCHEMA);
            Table items = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders__items"));
            assertThat(items.currentSnapshot().summary()).containsEntry(MirrorSummary.BATCH, "2");
        }
    }

    @Test
    void compactionAndExpiryKeepEveryRowAndWhatReadersHold() throws Exception {
        MirrorConfig compacting = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "3",
                "mirror.snapshots.keep-ms", "0", "mirror.snapshots.keep", "2"));
        for (int round = 0; round < 5; round++) {
            for (int order = 0; order < 4; order++) {
                store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 2
                        + "\",\"round\":" + round + ",\"items\":[{\"sku\":\"s" + round + "\"},{\"sku\":\"t\"}]}");
            }
            sync(compacting);
        }
        List<List<Object>> before = read("orders__items", "_id", "sku");
        Path containerDirectory = MirrorLayout.containerDirectory(mirrorDirectory, "orders");
        List<String> filesBefore = dataFiles("orders__items");
        try (ReaderLeases.Lease lease = new ReaderLeases(containerDirectory).take(2);
                ContainerTables tables = open(compacting)) {
            tables.maintain();

            assertThat(dataFiles("orders__items")).as("files after compaction").hasSize(1);
            assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrderElementsOf(before);
            assertThat(read("orders", "id", "round")).containsExactlyInAnyOrder(List.of("o0", 4L), List.of("o1", 4L),
                    List.of("o2", 4L), List.of("o3", 4L));
            try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
                Table items = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders__items"));
                List<String> batches = new ArrayList<>();
                items.snapshots().forEach(snapshot -> batches.add(snapshot.summary().get(MirrorSummary.BATCH)));
                // Batch 1's snapshot expires; batch 2's stays for the lease, and with it every later one.
                assertThat(batches).contains("2", "6").doesNotContain("1");
                long held = items.snapshots().iterator().next().snapshotId();
                assertThat(IcebergGenerics.read(items).useSnapshot(held).build()).hasSize(8);
            }
            assertThat(filesBefore).as("the held snapshot's files").allMatch(file -> Files.exists(
                    LocalFileIO.pathOf(file)));
        }

        // The moved rows are where the mirror thinks: the next version of each document replaces them.
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","round":9,"items":[]}""");
        sync(compacting);
        assertThat(read("orders__items", "_id")).hasSize(6).doesNotContain(List.of("o1"));
        // With the lease gone and the compaction's own snapshot among the old ones too (two commits later), the
        // snapshots up to it expire, and the files only they needed go.
        store.upsertItem("orders", """
                {"id":"o2","customerId":"c0","round":10,"items":[]}""");
        sync(compacting);
        try (ContainerTables tables = open(compacting)) {
            tables.maintain();
        }
        assertThat(filesBefore).as("files replaced by the compaction").noneMatch(file -> Files.exists(
                LocalFileIO.pathOf(file)));
    }

    @Test
    void aCompactionWrittenByDuckDbHoldsEveryValueExactlyAsIcebergsReaderReadsIt() throws IOException {
        List<String> documents = List.of("""
                {"id":"a","customerId":"c1","total":9007199254740993,"price":0.1000000000000000055511151231257827,
                 "ratio":-0.0,"huge":1e400,"when":"2024-05-01T10:00:00.123456Z","flag":true,"note":"ü 漢字 \\u0000",
                 "tags":["x","y"],"scores":[1,2,3],"items":[{"sku":"A","qty":1},{"sku":"B","qty":2.5}]}""", """
                {"id":"b","customerId":"c2","total":-42,"price":2.5,"ratio":1.5,"flag":false,"tags":[],
                 "items":[]}""", """
                {"id":"c","customerId":"c1","late":"a column added later","when":"2024-05-02T00:00:00Z",
                 "items":[{"sku":"C","qty":3}]}""", """
                {"id":"a","customerId":"c1","total":7,"price":0.3,"tags":["z"],"items":[{"sku":"D","qty":4}]}""");
        MirrorConfig never = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0"));
        for (String document : documents) {
            store.upsertItem("orders", document);
            sync(never);
        }
        List<String> tables = List.of("orders", "orders__items");
        Map<String, List<List<Object>>> before = new HashMap<>();
        for (String table : tables) {
            before.put(table, read(table, columns(table)));
            assertThat(dataFiles(table)).as(table).hasSizeGreaterThanOrEqualTo(3);
        }

        try (ContainerTables compacting = open(MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "3")))) {
            assertThat(compacting.compact()).isTrue();
        }
        for (String table : tables) {
            assertThat(dataFiles(table)).as(table).hasSize(1);
            assertThat(read(table, columns(table))).as(table).containsExactlyInAnyOrderElementsOf(before.get(table));
        }
        assertThat(before.get("orders")).as("the documents' current rows").hasSize(3);
        // The column statistics come from DuckDB's footer: a filtered scan still finds each value.
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            Table orders = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders"));
            assertThat(IcebergGenerics.read(orders).where(Expressions.equal("total", -42L)).build())
                    .singleElement().satisfies(row -> assertThat(row.getField("id")).isEqualTo("b"));
            assertThat(IcebergGenerics.read(orders).where(Expressions.equal("late", "a column added later")).build())
                    .singleElement().satisfies(row -> assertThat(row.getField("id")).isEqualTo("c"));
        }
        // The moved rows are where the document index thinks: a new version replaces them.
        store.upsertItem("orders", """
                {"id":"c","customerId":"c1","items":[]}""");
        sync(never);
        assertThat(read("orders__items", "_id")).containsExactlyInAnyOrder(List.of("a"));
        assertThat(read("orders", "id", "late")).contains(Arrays.asList("c", null)).hasSize(3);
    }

    private String[] columns(String table) {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            return catalog.catalog().loadTable(TableIdentifier.of("orders", table)).schema().columns().stream()
                    .map(Types.NestedField::name).toArray(String[]::new);
        }
    }

    @Test
    void rowsDeletedWhileACompactionRewritesTheirFilesOffTheBatchThreadStayDeleted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ContainerTables tables = openHoldingRewrites(release)) {
            List<String> rewritten = threeBatchesOfOrders(tables, 4);
            replaceO1AndDeleteO2WhileTheirFilesAreRewritten(tables, release);
            assertThat(tables.maintainInBackground()).as("the upkeep right after a batch leaves a rewritten "
                    + "compaction to the next batch").isFalse();
            assertThat(tables.maintainInBackground()).as("no batch came: the upkeep commits it").isTrue();

            List<String> after = dataFiles("orders");
            assertThat(after).as("the compacted file and the later batch's").hasSize(2)
                    .doesNotContainAnyElementsOf(rewritten);
            assertThat(read("orders", "id", "round")).containsExactlyInAnyOrder(List.of("o0", 2L),
                    List.of("o1", 3L), List.of("o3", 2L));
            assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o0", "s2"),
                    List.of("o1", "late"), List.of("o3", "s2"));

            // The moved rows are where the document index thinks: a new version replaces them.
            store.upsertItem("orders", """
                    {"id":"o3","customerId":"c1","round":4,"items":[]}""");
            FeedSync.sync(store, ORDERS, tables);
            assertThat(read("orders", "id", "round")).containsExactlyInAnyOrder(List.of("o0", 2L),
                    List.of("o1", 3L), List.of("o3", 4L));
            assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o0", "s2"),
                    List.of("o1", "late"));
        }
    }

    @Test
    void aCompactionRewrittenOffTheBatchThreadIsCommittedByTheNextBatchAndRowsThatBatchDeletesStayDeleted()
            throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ContainerTables tables = openHoldingRewrites(release)) {
            List<String> rewritten = threeBatchesOfOrders(tables, 5);
            replaceO1AndDeleteO2WhileTheirFilesAreRewritten(tables, release);

            // The next batch commits the compaction with its own changes, which delete rows of the rewritten files.
            store.upsertItem("orders", """
                    {"id":"o3","customerId":"c1","round":3,"items":[{"sku":"later"}]}""");
            store.deleteItem("orders", PartitionKey.of("c0"), "o0");
            assertThat(FeedSync.sync(store, ORDERS, tables).compacted()).as("the second batch's commit compacted")
                    .isTrue();
            assertThat(dataFiles("orders")).as("the compacted file and the two batches'").hasSize(3)
                    .doesNotContainAnyElementsOf(rewritten);
            assertThat(read("orders", "id", "round")).containsExactlyInAnyOrder(List.of("o1", 3L),
                    List.of("o3", 3L), List.of("o4", 2L));
            assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o1", "late"),
                    List.of("o3", "later"), List.of("o4", "s2"));
            assertThat(oneVectorAtMostPerDataFile("orders")).isTrue();

            // o4's rows moved into the compacted file, untouched since: a new version replaces them there.
            store.upsertItem("orders", """
                    {"id":"o4","customerId":"c0","round":4,"items":[]}""");
            FeedSync.sync(store, ORDERS, tables);
            assertThat(read("orders", "id", "round")).containsExactlyInAnyOrder(List.of("o1", 3L),
                    List.of("o3", 3L), List.of("o4", 4L));
            assertThat(read("orders__items", "_id", "sku")).containsExactlyInAnyOrder(List.of("o1", "late"),
                    List.of("o3", "later"));
        }
    }

    /**
     * Plans a compaction of the three files, and while its rewrite waits for {@code release}, commits a batch that
     * replaces o1 and deletes o2, rows of those files; then releases the rewrite and waits until it is done.
     */
    private void replaceO1AndDeleteO2WhileTheirFilesAreRewritten(ContainerTables tables, CountDownLatch release) {
        assertThat(tables.maintainInBackground()).as("committed a compaction at once").isFalse();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","round":3,"items":[{"sku":"late"}]}""");
        store.deleteItem("orders", PartitionKey.of("c0"), "o2");
        assertThat(FeedSync.sync(store, ORDERS, tables).compacted()).as("a batch took the compaction in before it "
                + "was rewritten").isFalse();
        release.countDown();
        tables.awaitCompactionRewrite();
    }

    /**
     * Tables that compact at three files, whose compaction rewrites wait (on the compaction's thread) until
     * {@code release}.
     */
    private ContainerTables openHoldingRewrites(CountDownLatch release) {
        MirrorConfig compacting = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "3"));
        return ContainerTables.open(mirrorDirectory, "orders", FlattenerConfig.defaults("orders"), compacting,
                (step, table) -> {
                    try {
                        if (step == CommitStep.COMPACTION_REWRITTEN && !release.await(60, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("The test did not release the rewrite within 60 s");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                });
    }

    /** Three batches (rounds 0 to 2) of {@code orders} orders, o0 onwards: three root files. */
    private List<String> threeBatchesOfOrders(ContainerTables tables, int orders) {
        for (int round = 0; round < 3; round++) {
            for (int order = 0; order < orders; order++) {
                store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 2
                        + "\",\"round\":" + round + ",\"items\":[{\"sku\":\"s" + round + "\"}]}");
            }
            FeedSync.sync(store, ORDERS, tables);
        }
        List<String> files = dataFiles("orders");
        assertThat(files).hasSize(3);
        return files;
    }

    @Test
    void filesACrashLeftAreRemovedAtTheFirstUpkeepUnlessAReaderHoldsALease() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","items":[{"sku":"A"}]}""");
        sync();
        Path warehouse = mirrorDirectory.resolve("warehouse").resolve("orders");
        Path leftoverData = write(warehouse.resolve("orders/data/0000000002-crashed-0.parquet"), true);
        Path leftoverMetadata = write(warehouse.resolve("orders__items/metadata/00009-crashed.metadata.json"), true);
        Path droppedTable = write(warehouse.resolve("orders__gone/data/0000000001-x-0.parquet"), true);
        Path recent = write(warehouse.resolve("orders/data/0000000003-writing-0.parquet"), false);
        List<String> live = dataFiles("orders");
        // Hadoop's local file system writes one beside each file (a REST catalog server does, for metadata files).
        Path liveChecksum = write(checksumOf(LocalFileIO.pathOf(live.get(0))), true);
        Path leftoverChecksum = write(checksumOf(leftoverData), true);

        try (ReaderLeases.Lease lease = new ReaderLeases(MirrorLayout.containerDirectory(mirrorDirectory, "orders"))
                .take(1); ContainerTables tables = open()) {
            tables.maintain();
            assertThat(leftoverData).as("kept while a reader holds a lease").exists();
        }
        try (ContainerTables tables = open()) {
            // Mirroring starts before the search, which reads every retained snapshot's manifests.
            assertThat(leftoverData).as("on opening").exists();
            tables.maintain();
            assertThat(leftoverData).doesNotExist();
            assertThat(leftoverMetadata).doesNotExist();
            assertThat(droppedTable).doesNotExist();
            assertThat(recent).as("younger than keep-ms").exists();
            assertThat(liveChecksum).as("the checksum of a live file").exists();
            assertThat(leftoverChecksum).as("the checksum of a file a crash left").doesNotExist();
        }
        assertThat(live).allMatch(file -> Files.exists(LocalFileIO.pathOf(file)));
        assertThat(read("orders__items", "_id", "sku")).containsExactly(List.of("o1", "A"));
    }

    private static Path write(Path file, boolean old) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "left over");
        if (old) {
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
        }
        return file;
    }

    private static Path checksumOf(Path file) {
        return file.resolveSibling("." + file.getFileName() + ".crc");
    }

    private List<String> dataFiles(String table) {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            return TableChanges.liveFiles(catalog.catalog().loadTable(TableIdentifier.of("orders", table)),
                    catalog.workers()).stream()
                    .map(org.apache.iceberg.DataFile::location).toList();
        }
    }

    /** Reads every change after the mirror's checkpoint and commits them as one batch. */
    private void sync() {
        sync(MirrorConfig.defaults());
    }

    private void sync(MirrorConfig config) {
        FeedSync.sync(store, ORDERS, mirrorDirectory, FlattenerConfig.defaults("orders"), config, clock);
    }

    private ContainerTables open() {
        return open(MirrorConfig.defaults());
    }

    private ContainerTables open(MirrorConfig config) {
        return ContainerTables.open(mirrorDirectory, "orders", FlattenerConfig.defaults("orders"), config);
    }

    private List<List<Object>> read(String table, String... columns) {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            return IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", table)), columns);
        }
    }

    private boolean oneVectorAtMostPerDataFile(String table) throws IOException {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory));
                CloseableIterable<FileScanTask> tasks = catalog.catalog()
                        .loadTable(TableIdentifier.of("orders", table)).newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                if (task.deletes().size() > 1) {
                    return false;
                }
            }
        }
        return true;
    }

    private static List<Object> listOf(Object... values) {
        List<Object> list = new ArrayList<>();
        for (Object value : values) {
            list.add(value);
        }
        return list;
    }
}
