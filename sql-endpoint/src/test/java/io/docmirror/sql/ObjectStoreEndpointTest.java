package io.docmirror.sql;

import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.ObjectStoreOptions;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.s3fixture.S3ProxyServer;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static io.docmirror.sql.SqlEndpointTest.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint over a mirror whose tables are in an S3-compatible object store (S3Proxy, in a JVM of its own), with
 * the embedded catalog: its copy reads the data files and deletion vectors through Iceberg's S3FileIO, follows
 * updates, deletes, a widening and a compaction; and {@code status} reads the tables there too.
 */
@Tag("slow")
class ObjectStoreEndpointTest {
    private static final String BUCKET = "lake";

    @TempDir
    Path work;

    @Test
    void theEndpointServesTablesInAnObjectStore() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(work.resolve("s3"), BUCKET);
                MirroredData data = new MirroredData(work.resolve("data"))) {
            CatalogOptions catalog = new CatalogOptions("sqlite", "", "s3://" + BUCKET + "/docmirror", "", "",
                    new ObjectStoreOptions(server.endpoint(), S3ProxyServer.REGION, true, S3ProxyServer.ACCESS_KEY_ID,
                            S3ProxyServer.SECRET_ACCESS_KEY));
            MirrorConfig config = MirrorConfig.defaults().withCatalog(catalog)
                    .withCompaction(2, Duration.ofMinutes(1));
            data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
            data.store.createItem("orders", """
                    {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"},{"sku":"B"}]}""");
            data.store.createItem("orders", """
                    {"id":"o2","customerId":"c2","total":20,"items":[{"sku":"C"}]}""");
            data.sync(config);
            SqlConfig atOnce = SqlConfig.defaults().withRefreshInterval(Duration.ZERO);
            long servedBatch;
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), catalog, atOnce);
                    Connection connection = endpoint.connect()) {
                assertThat(rows(connection, "SELECT id, total FROM orders ORDER BY id"))
                        .containsExactly(List.of("o1", 10L), List.of("o2", 20L));

                // An update, a delete (deletion vectors) and a widening (every file copied anew).
                data.store.upsertItem("orders", """
                        {"id":"o1","customerId":"c1","total":10.25,"items":[{"sku":"B"}]}""");
                data.store.deleteItem("orders", PartitionKey.of("c2"), "o2");
                data.store.createItem("orders", """
                        {"id":"o3","customerId":"c1","total":3,"items":[]}""");
                data.sync(config);
                data.store.upsertItem("orders", """
                        {"id":"o3","customerId":"c1","total":4,"items":[{"sku":"D"}]}""");
                data.sync(config);

                // 10.25 and every value before it are exact doubles: the flattener widened BIGINT to DOUBLE.
                assertThat(rows(connection, "SELECT id, total FROM orders ORDER BY id")).containsExactly(
                        List.of("o1", 10.25), List.of("o3", 4.0));
                assertThat(rows(connection, "SELECT _id, sku FROM orders__items ORDER BY _id, sku"))
                        .containsExactly(List.of("o1", "B"), List.of("o3", "D"));
                assertThat(rows(connection, "SELECT count(*) FROM orders_history")).containsExactly(List.of(6L));
                servedBatch = endpoint.versions().get("orders");
            }
            assertThat(data.mirrorDirectory().resolve("warehouse")).as("no table file on the mirror's disk")
                    .doesNotExist();
            // status reads the tables through the object store too.
            ContainerStatus status = ContainerStatus.ofMirroredContainers(
                    catalog.settings(data.mirrorDirectory()), data.store, data.clock).get(0);
            assertThat(status.batch()).as("%s", status).isEqualTo(servedBatch);
            assertThat(status.damagedFiles()).isEmpty();
        }
    }
}
