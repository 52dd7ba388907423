package io.docmirror.layout;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class MirrorCatalogTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.StringType.get()),
            Types.NestedField.optional(2, "amount", Types.DecimalType.of(38, 2)));

    @TempDir
    Path directory;

    @Test
    void theEmbeddedCatalogKeepsFormatVersion3TablesInASqliteFileThatOtherToolsRead() throws Exception {
        CatalogSettings settings = CatalogSettings.embedded(directory);
        TableIdentifier orders = TableIdentifier.of(Namespace.of("shop"), "orders");
        try (CatalogConnection catalog = MirrorCatalog.open(settings)) {
            ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("shop"));
            Table table = catalog.catalog().buildTable(orders, SCHEMA)
                    .withProperty(TableProperties.FORMAT_VERSION, "3").create();
            table.newAppend().appendFile(dataFile(table, "a.parquet")).set("docmirror.batch", "1").commit();
        }

        // The rows JdbcCatalog keeps, as pyiceberg's SqlCatalog and Trino's JDBC catalog look them up.
        try (Connection sqlite = DriverManager.getConnection("jdbc:sqlite:" + directory.resolve("catalog.db"));
                ResultSet row = sqlite.createStatement().executeQuery("SELECT catalog_name, table_namespace, "
                        + "table_name, iceberg_type, metadata_location FROM iceberg_tables")) {
            assertThat(row.next()).isTrue();
            assertThat(List.of(row.getString(1), row.getString(2), row.getString(3), row.getString(4)))
                    .containsExactly("docmirror", "shop", "orders", "TABLE");
            Path metadata = LocalFileIO.pathOf(row.getString(5));
            assertThat(metadata).startsWith(directory.resolve("warehouse")).exists();
            assertThat(Files.readString(metadata)).contains("\"format-version\":3");
            assertThat(row.next()).isFalse();
        }

        try (CatalogConnection reopened = MirrorCatalog.open(settings)) {
            Table table = reopened.catalog().loadTable(orders);
            assertThat(table.currentSnapshot().summary()).containsEntry("docmirror.batch", "1");
            assertThat(table.schema().findField("amount").type()).isEqualTo(Types.DecimalType.of(38, 2));
        }
    }

    @Test
    void localFilesRoundTripAndListUnderAPrefix() throws Exception {
        LocalFileIO io = new LocalFileIO();
        String location = LocalFileIO.locationOf(directory.resolve("a/b/c.bin"));
        byte[] bytes = new byte[200_000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31);
        }
        try (var out = io.newOutputFile(location).create()) {
            out.write(bytes, 0, 10);
            out.write(bytes[10]);
            out.write(bytes, 11, bytes.length - 11);
            assertThat(out.getPos()).isEqualTo(bytes.length);
        }
        var input = io.newInputFile(location);
        assertThat(input.getLength()).isEqualTo(bytes.length);
        try (var in = input.newStream()) {
            in.seek(150_000);
            byte[] tail = in.readAllBytes();
            assertThat(tail).hasSize(50_000);
            assertThat(tail[0]).isEqualTo(bytes[150_000]);
        }
        List<String> listed = new ArrayList<>();
        io.listPrefix(LocalFileIO.locationOf(directory.resolve("a"))).forEach(file -> listed.add(file.location()));
        assertThat(listed).containsExactly(location);
        io.deletePrefix(LocalFileIO.locationOf(directory.resolve("a")));
        assertThat(io.newInputFile(location).exists()).isFalse();
    }

    private static DataFile dataFile(Table table, String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build();
    }
}
