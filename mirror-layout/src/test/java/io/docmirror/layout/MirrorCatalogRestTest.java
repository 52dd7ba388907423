package io.docmirror.layout;

import io.docmirror.restfixture.RestCatalogServer;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MirrorCatalog} opens a REST catalog: against Iceberg's reference server (1.11, in a JVM of its own), our 1.12
 * client creates format-version 3 tables and commits appends to two of them in one {@code commitTransaction}.
 */
class MirrorCatalogRestTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.StringType.get()),
            Types.NestedField.optional(2, "amount", Types.DecimalType.of(38, 2)));

    @Test
    void theCatalogOpenerTalksToARestCatalogServer(@TempDir Path directory) throws Exception {
        try (RestCatalogServer server = RestCatalogServer.start(directory.resolve("rest"))) {
            // The client writes the manifests itself: through LocalFileIO, as this module has no Hadoop.
            CatalogSettings settings = new CatalogSettings(CatalogSettings.Kind.REST, "docmirror", server.uri(),
                    server.warehouse(), Map.of(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName()));
            Namespace shop = Namespace.of("shop");
            TableIdentifier orders = TableIdentifier.of(shop, "orders");
            TableIdentifier customers = TableIdentifier.of(shop, "customers");
            try (CatalogConnection connection = MirrorCatalog.open(settings)) {
                assertThat(connection.catalog()).isInstanceOf(RESTCatalog.class);
                ((SupportsNamespaces) connection.catalog()).createNamespace(shop);
                List<TableCommit> commits = List.of(
                        appendOne(create(connection, orders), orders),
                        appendOne(create(connection, customers), customers));
                ((RESTCatalog) connection.catalog()).commitTransaction(commits);
            }

            try (CatalogConnection reopened = MirrorCatalog.open(settings)) {
                for (TableIdentifier identifier : List.of(orders, customers)) {
                    Table table = reopened.catalog().loadTable(identifier);
                    Snapshot snapshot = table.currentSnapshot();
                    int formatVersion = ((HasTableOperations) table).operations().current().formatVersion();
                    System.out.println(identifier + ": format version " + formatVersion + ", location "
                            + table.location() + ", snapshot " + (snapshot == null ? null : snapshot.summary()));
                    assertThat(formatVersion).isEqualTo(3);
                    assertThat(LocalFileIO.pathOf(table.location()))
                            .startsWith(LocalFileIO.pathOf(server.warehouse()));
                    assertThat(snapshot).as("%s's current snapshot", identifier).isNotNull();
                    assertThat(snapshot.summary())
                            .containsEntry("added-data-files", "1")
                            .containsEntry("docmirror.batch", "1");
                    assertThat(LocalFileIO.pathOf(snapshot.manifestListLocation())).isRegularFile();
                }
            }
        }
    }

    private static Table create(CatalogConnection connection, TableIdentifier identifier) {
        return connection.catalog().buildTable(identifier, SCHEMA)
                .withProperty(TableProperties.FORMAT_VERSION, "3").create();
    }

    /** The transaction is not committed itself: its change goes into the catalog's multi-table commit. */
    private static TableCommit appendOne(Table table, TableIdentifier identifier) {
        Transaction transaction = table.newTransaction();
        transaction.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
                        .withPath(table.location() + "/data/" + identifier.name() + ".parquet")
                        .withFormat(FileFormat.PARQUET)
                        .withFileSizeInBytes(100)
                        .withRecordCount(1)
                        .build())
                .set("docmirror.batch", "1")
                .commit();
        BaseTransaction base = (BaseTransaction) transaction;
        return TableCommit.create(identifier, base.startMetadata(), base.currentMetadata());
    }
}
