package io.docmirror.restfixture;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fixture's server is a working Iceberg REST catalog: Iceberg 1.11's own RESTCatalog client (this module's class
 * path is the server's) creates v3 tables through it and commits one transaction across two tables.
 */
class RestCatalogServerTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "data", Types.StringType.get()));

    @Test
    void aTwoTableTransactionCommitsThroughTheServer(@TempDir Path directory) throws Exception {
        try (RestCatalogServer server = RestCatalogServer.start(directory.resolve("server"));
             RESTCatalog catalog = client(server)) {
            Namespace namespace = Namespace.of("smoke");
            catalog.createNamespace(namespace);
            TableIdentifier first = TableIdentifier.of(namespace, "first");
            TableIdentifier second = TableIdentifier.of(namespace, "second");
            Map<String, String> properties = Map.of(TableProperties.FORMAT_VERSION, "3");
            Table firstTable = catalog.createTable(first, SCHEMA, PartitionSpec.unpartitioned(), properties);
            Table secondTable = catalog.createTable(second, SCHEMA, PartitionSpec.unpartitioned(), properties);
            System.out.println("Tables: " + catalog.listTables(namespace));
            assertThat(catalog.listTables(namespace)).containsExactlyInAnyOrder(first, second);

            TableMetadata created = metadata(catalog.loadTable(first));
            System.out.println("Created " + first + ": format version " + created.formatVersion() + ", metadata "
                    + created.metadataFileLocation());
            assertThat(created.formatVersion()).isEqualTo(3);
            // The server wrote the metadata file into the warehouse it was given, on the local disk.
            Path warehouse = Path.of(URI.create(server.warehouse()));
            assertThat(Path.of(URI.create(created.metadataFileLocation())))
                    .startsWith(warehouse.resolve("smoke/first/metadata"))
                    .isRegularFile();

            TableCommit firstCommit = appendOneFile(firstTable, first, "7");
            TableCommit secondCommit = appendOneFile(secondTable, second, "7");
            System.out.println("Committing " + firstCommit.updates().size() + " + " + secondCommit.updates().size()
                    + " updates; requirements " + firstCommit.requirements() + " / " + secondCommit.requirements());
            catalog.commitTransaction(firstCommit, secondCommit);

            for (TableIdentifier identifier : List.of(first, second)) {
                Table table = catalog.loadTable(identifier);
                Snapshot snapshot = table.currentSnapshot();
                System.out.println(identifier + ": format version " + metadata(table).formatVersion()
                        + ", snapshot " + (snapshot == null ? null : snapshot.snapshotId() + " "
                        + snapshot.operation() + " " + snapshot.summary()));
                assertThat(snapshot).as("%s's current snapshot", identifier).isNotNull();
                assertThat(snapshot.operation()).isEqualTo("append");
                assertThat(snapshot.summary())
                        .containsEntry("added-data-files", "1")
                        .containsEntry("added-records", "10")
                        .containsEntry("docmirror.batch", "7");
                assertThat(table.snapshots()).hasSize(1);
                // The client wrote the manifest list; the server recorded where.
                assertThat(Path.of(URI.create(snapshot.manifestListLocation())))
                        .startsWith(warehouse.resolve("smoke").resolve(identifier.name()).resolve("metadata"))
                        .isRegularFile();
            }

            // The server checks each commit's requirements: the same commits again start from a table state that
            // is gone (no snapshot yet on main), so they are refused and nothing changes.
            assertThatThrownBy(() -> catalog.commitTransaction(firstCommit, secondCommit))
                    .isInstanceOf(CommitFailedException.class)
                    .satisfies(e -> System.out.println("Stale commit refused: " + e));
            for (TableIdentifier identifier : List.of(first, second)) {
                assertThat(catalog.loadTable(identifier).snapshots()).as("%s's snapshots", identifier).hasSize(1);
            }
        }
    }

    @Test
    void aDirectoryWithoutTheServersJarsIsRefusedClearly(@TempDir Path directory) throws Exception {
        Path empty = Files.createDirectories(directory.resolve("empty"));
        assertThatThrownBy(() -> RestCatalogServer.start(directory.resolve("server"), empty))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RestCatalogServer.CLASSPATH_PROPERTY)
                .hasMessageContaining("iceberg-open-api-")
                .satisfies(e -> System.out.println("Refused: " + e.getMessage()));
        assertThatThrownBy(() -> RestCatalogServer.start(directory.resolve("server"), directory.resolve("absent")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("build the rest-catalog-fixture module first")
                .satisfies(e -> System.out.println("Refused: " + e.getMessage()));
    }

    private static RESTCatalog client(RestCatalogServer server) {
        RESTCatalog catalog = new RESTCatalog();
        // The client writes manifests itself, through Hadoop's local file system like the server.
        catalog.setConf(new Configuration());
        catalog.initialize("smoke", Map.of(
                CatalogProperties.URI, server.uri(),
                CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.hadoop.HadoopFileIO",
                // Metrics reports are posted asynchronously and would outlive a closed client.
                "rest-metrics-reporting-enabled", "false"));
        return catalog;
    }

    /**
     * A transaction that appends one (fake) data file, turned into the commit the catalog sends: the transaction
     * itself is never committed, so both tables change in the one {@code commitTransaction}.
     */
    private static TableCommit appendOneFile(Table table, TableIdentifier identifier, String batch) {
        DataFile file = DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/" + identifier.name() + "-00000.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1024)
                .withRecordCount(10)
                .build();
        Transaction transaction = table.newTransaction();
        transaction.newAppend().appendFile(file).set("docmirror.batch", batch).commit();
        BaseTransaction base = (BaseTransaction) transaction;
        return TableCommit.create(identifier, base.startMetadata(), base.currentMetadata());
    }

    private static TableMetadata metadata(Table table) {
        return ((HasTableOperations) table).operations().current();
    }
}
