package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * No column of any of the mirror's tables may carry a name Iceberg reserves for its metadata columns (Spark refuses
 * such a table whole), and a mirror an earlier version made, whose root table has {@code _deleted}, is renamed in
 * place when it is opened, keeping its rows.
 */
class SystemColumnMigrationTest {
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
    void noTableHasAColumnIcebergReservesForMetadata() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A","qty":1,"parts":[{"n":1}]}],
                 "tags":["x"],"deep":{"a":{"b":1}},"mixed":[1,"a"]}""");
        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\",\"total\":\"ten\"}");
        sync();

        List<String> reserved = new ArrayList<>();
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            List<TableIdentifier> tables = catalog.catalog().listTables(Namespace.of("orders"));
            assertThat(tables).extracting(TableIdentifier::name)
                    .contains("orders", "orders__items", "orders__items__parts", "orders_history");
            for (TableIdentifier identifier : tables) {
                for (Types.NestedField column : catalog.catalog().loadTable(identifier).schema().columns()) {
                    if (MetadataColumns.isMetadataColumn(column.name())) {
                        reserved.add(identifier.name() + "." + column.name());
                    }
                }
            }
        }
        assertThat(reserved).isEmpty();
    }

    @Test
    void aRootTableAnEarlierVersionMadeIsRenamedInPlaceAndKeepsItsRows() {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":10}");
        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\",\"total\":5}");
        sync();
        int fieldId = renameAsAnEarlierVersionHad("_is_deleted", "_deleted");

        store.upsertItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\",\"total\":6}");
        store.createItem("orders", "{\"id\":\"o3\",\"customerId\":\"c1\",\"total\":7}");
        sync();

        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            Table root = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders"));
            assertThat(root.schema().findField("_deleted")).isNull();
            assertThat(root.schema().findField("_is_deleted").fieldId()).isEqualTo(fieldId);
            assertThat(root.properties().get(MirrorProperties.COLUMN_ROLES))
                    .contains("\"_is_deleted\":\"system\"").doesNotContain("\"_deleted\"");
            assertThat(IcebergRows.read(root, "id", "total", "_is_deleted")).containsExactlyInAnyOrder(
                    List.of("o1", 10L, false), List.of("o2", 6L, false), List.of("o3", 7L, false));
        }
    }

    @Test
    void aDocumentPropertyHoldingTheNewNameIsRefusedWithTheWayOut() {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"flag\":true}");
        sync();
        // An earlier version gave a property "_is_deleted" that very name, beside its system column _deleted.
        renameAsAnEarlierVersionHad("_is_deleted", "_deleted");
        renameAsAnEarlierVersionHad("flag", "_is_deleted");

        assertThatThrownBy(this::sync).isInstanceOfSatisfying(MirrorException.class,
                        failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.UNREADABLE_MIRROR))
                .hasMessageContaining("system column _deleted is now named _is_deleted")
                .hasMessageContaining("docmirror rebuild --table orders");
    }

    /** Renames a column of the root table as an earlier version's mirror had it; returns its field id. */
    private int renameAsAnEarlierVersionHad(String name, String earlierName) {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            Table root = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders"));
            Transaction transaction = root.newTransaction();
            transaction.updateSchema().renameColumn(name, earlierName).commit();
            transaction.updateProperties().set(MirrorProperties.COLUMN_ROLES, root.properties()
                    .get(MirrorProperties.COLUMN_ROLES).replace("\"" + name + "\"", "\"" + earlierName + "\""))
                    .commit();
            transaction.commitTransaction();
            return root.schema().findField(earlierName).fieldId();
        }
    }

    private void sync() {
        FeedSync.sync(store, ORDERS, mirrorDirectory, FlattenerConfig.defaults("orders"), MirrorConfig.defaults(),
                clock);
    }
}
