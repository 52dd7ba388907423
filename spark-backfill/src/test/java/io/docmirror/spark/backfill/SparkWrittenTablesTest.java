package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorSql;
import io.docmirror.mirror.MixedDocuments;
import io.docmirror.mirror.SameTables;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.server.StoreHttpServer;
import org.apache.iceberg.Table;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Iceberg's own reader ({@code IcebergGenerics}, which applies deletion vectors) on the tables a Spark backfill wrote,
 * after the change feed updated and deleted some of its documents: every table holds the rows the SQL endpoint's
 * views show, and the rows a single-machine backfill's tables hold after the same changes.
 */
class SparkWrittenTablesTest {
    private static final String CONTAINER = "docs";
    private static final MirrorConfig CONFIG = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0",
            "mirror.snapshots.keep-ms", "0"));
    private static final FlattenerConfig FLATTENER = FlattenerConfig.defaults(CONTAINER);

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private StoreHttpServer server;

    @BeforeEach
    void serveStore() throws Exception {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of(CONTAINER, "/pk").withAnalyticalTtl(-1).withLogPartitions(4));
        MixedDocuments.write(store, CONTAINER);
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
    }

    @AfterEach
    void stopStore() {
        server.close();
        store.close();
    }

    @Test
    void icebergsReaderReadsTheSparkWrittenTablesAsTheViewsDo() throws Exception {
        Path onSpark = work.resolve("spark");
        try (JavaSparkContext spark = new JavaSparkContext(new SparkConf().setMaster("local[2,2]")
                .setAppName("SparkWrittenTablesTest").set("spark.ui.enabled", "false"))) {
            new SparkBackfill(spark, onSpark, CONFIG, FLATTENER, clock)
                    .run(new StoreAddress(server.baseUri().toString(), null), CONTAINER, 3);
        }
        Path single = work.resolve("single");
        new Backfill(store, single, CONFIG, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);

        // An update and a delete through the change feed: deletion vectors on the Spark-written files.
        store.upsertItem(CONTAINER, "{\"id\":\"json_schema_test_suite-0\",\"pk\":\"p0\",\"replaced\":true}");
        store.deleteItem(CONTAINER, PartitionKey.of("p1"), "wide");
        for (Path mirror : new Path[] {onSpark, single}) {
            try (FeedMirror daemon = new FeedMirror(store, mirror, CONFIG, FlattenerConfig::defaults, clock)) {
                daemon.sync();
            }
        }

        Map<String, Long> icebergCounts = new TreeMap<>();
        Map<String, Long> viewCounts = new TreeMap<>();
        try (CatalogReader catalog = CatalogReader.open(CatalogSettings.embedded(onSpark));
                MirrorSql views = MirrorSql.open(onSpark, CONTAINER)) {
            Map<String, Table> tables = catalog.pointers(CONTAINER).tables(MirrorTables.namespace(CONTAINER));
            for (Map.Entry<String, Table> table : tables.entrySet()) {
                icebergCounts.put(table.getKey(), (long) SameTables.icebergRows(table.getValue()).size());
                String view = table.getKey().equals(MirrorTables.deadLetters(CONTAINER)) ? "dead_letters"
                        : "\"" + table.getKey() + "\"";
                viewCounts.put(table.getKey(), ((Number) views.value("SELECT count(*) FROM " + view)).longValue());
            }
        }
        System.out.println("Rows of the Spark-written tables, through Iceberg's reader: " + icebergCounts);
        assertThat(icebergCounts).isEqualTo(viewCounts).containsKeys(CONTAINER, CONTAINER + "_history");
        assertThat(icebergCounts.get(CONTAINER)).isPositive();
        // The deleted document's row and the updated one's old row are gone; the new version is there.
        try (MirrorSql views = MirrorSql.open(onSpark, CONTAINER)) {
            assertThat(views.value("SELECT count(*) FROM \"" + CONTAINER + "\" WHERE id IN ('wide', "
                    + "'json_schema_test_suite-0')")).isEqualTo(1L);
        }
        SameTables.assertSame(CatalogSettings.embedded(onSpark), CatalogSettings.embedded(single), CONTAINER);
    }
}
