package io.docmirror.sql;

import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.restfixture.RestCatalogServer;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint over a mirror whose tables are in a real Iceberg REST catalog (Iceberg's reference server, in a JVM of
 * its own), with the warehouse outside the mirror directory: the views answer with the store's documents and
 * {@code docmirror_freshness} shows the batch, through {@link SqlEndpoint} and through the JDBC driver's
 * {@code mirror.catalog.*} properties.
 */
class RestCatalogEndpointTest {
    @TempDir
    Path work;

    @Test
    void theEndpointServesTheTablesOfARestCatalog() throws Exception {
        try (RestCatalogServer server = RestCatalogServer.start(work.resolve("rest"));
                MirroredData data = new MirroredData(work.resolve("data"))) {
            CatalogOptions catalog = new CatalogOptions("rest", server.uri(), server.warehouse(), "", "");
            MirrorConfig config = MirrorConfig.defaults().withCatalog(catalog);
            data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
            data.store.createItem("orders", """
                    {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"},{"sku":"B"}]}""");
            data.store.createItem("orders", """
                    {"id":"o2","customerId":"c2","total":20,"items":[{"sku":"C"}]}""");
            data.sync(config);
            data.store.upsertItem("orders", """
                    {"id":"o1","customerId":"c1","total":11,"items":[{"sku":"B"}]}""");
            data.store.deleteItem("orders", PartitionKey.of("c2"), "o2");
            data.store.createItem("orders", """
                    {"id":"o3","customerId":"c1","total":3,"items":[]}""");
            data.sync(config);

            assertThat(data.mirrorDirectory().resolve(CatalogSettings.SQLITE_FILE)).doesNotExist();
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), catalog, SqlConfig.defaults());
                    Connection connection = endpoint.connect()) {
                assertThat(rows(connection, "SELECT id, total FROM orders ORDER BY id"))
                        .containsExactly(List.of("o1", 11L), List.of("o3", 3L));
                assertThat(rows(connection, "SELECT _id, sku FROM orders__items ORDER BY _id, sku"))
                        .containsExactly(List.of("o1", "B"));
                assertThat(rows(connection, "SELECT count(*) FROM orders_history")).containsExactly(List.of(5L));
                assertThat(rows(connection, "SELECT container, batch FROM docmirror_freshness"))
                        .containsExactly(List.of("orders", 2L));
                assertThat(endpoint.versions()).containsEntry("orders", 2L);
            }

            Properties properties = new Properties();
            properties.setProperty("mirror.catalog.type", "rest");
            properties.setProperty("mirror.catalog.uri", server.uri());
            properties.setProperty("mirror.catalog.warehouse", server.warehouse());
            try (Connection connection = DriverManager.getConnection(DocmirrorDriver.URL_PREFIX + data.dataDirectory,
                    properties)) {
                assertThat(rows(connection, "SELECT count(*) FROM orders")).containsExactly(List.of(2L));
            }
        }
    }

    private static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= columns; column++) {
                    row.add(result.getObject(column));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
