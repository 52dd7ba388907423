package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.mirror.ScratchDirectory;
import io.docmirror.mirror.WriterLock;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A batch of changes to a root and a child table, committed together through the SQLite catalog, with deletion
 * vectors for replaced rows; Iceberg's own reader, which applies the vectors, must return exactly the current rows.
 */
class CatalogBatchTest {
    private static final Namespace SHOP = Namespace.of("shop");
    private static final TableIdentifier ORDERS = TableIdentifier.of(SHOP, "orders");
    private static final TableIdentifier ITEMS = TableIdentifier.of(SHOP, "orders__items");

    @TempDir
    Path directory;
    private CatalogSettings settings;
    private CatalogConnection connection;
    private Catalog catalog;
    private final Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
    private final Map<TableIdentifier, Map<String, DeleteFile>> vectors = new HashMap<>();
    private WriterLock lock;
    private DuckDbWriters writers;
    private long lsn;

    @BeforeEach
    void openCatalog() {
        settings = CatalogSettings.embedded(directory);
        connection = MirrorCatalog.open(settings);
        catalog = connection.catalog();
        ((SupportsNamespaces) catalog).createNamespace(SHOP);
        lock = WriterLock.take(directory.resolve("shop"), "shop");
        writers = DuckDbWriters.open("shop", ScratchDirectory.takeOver(directory.resolve("shop"), lock));
    }

    @AfterEach
    void closeCatalog() {
        connection.close();
        writers.close();
        lock.close();
    }

    @Test
    void updatesDeleteTheReplacedRowsOfEveryTableThroughOneDeletionVectorPerDataFile() throws IOException {
        List<FlattenResult> first = List.of(
                flatten("{\"id\":\"a\",\"total\":10.5,\"items\":[{\"sku\":\"x\"},{\"sku\":\"y\"}]}"),
                flatten("{\"id\":\"b\",\"total\":20,\"items\":[{\"sku\":\"z\"}]}"),
                flatten("{\"id\":\"c\",\"total\":30,\"items\":[]}"));
        Map<String, List<Position>> written = commit(first, List.of());

        // b changes: its root row and its child row go, the new version's rows come.
        Map<String, List<Position>> second = commit(
                List.of(flatten("{\"id\":\"b\",\"total\":21.25,\"items\":[{\"sku\":\"z2\"},{\"sku\":\"z3\"}]}")),
                written.get("b"));
        // a changes too: the first data files get a second deletion vector, merged with the first one.
        commit(List.of(flatten("{\"id\":\"a\",\"total\":11,\"items\":[]}")), written.get("a"));

        assertThat(read(ORDERS, "id", "total")).containsExactlyInAnyOrder(
                List.of("a", 11.0), List.of("b", 21.25), List.of("c", 30.0));
        assertThat(read(ITEMS, "_id", "sku")).containsExactlyInAnyOrder(List.of("b", "z2"), List.of("b", "z3"));
        assertThat(second).containsKey("b");
        for (TableIdentifier table : List.of(ORDERS, ITEMS)) {
            try (CloseableIterable<FileScanTask> tasks = catalog.loadTable(table).newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    assertThat(task.deletes()).as("deletion vectors of %s", task.file().location()).hasSizeLessThan(2);
                }
            }
        }
    }

    @Test
    void aBatchWhoseTablesMovedMeanwhileChangesNothing() throws IOException {
        commit(List.of(flatten("{\"id\":\"a\",\"items\":[{\"sku\":\"x\"}]}")), List.of());
        CatalogBatch late = new SqliteCatalogBatch(settings, new LocalFileIO());
        late.table(ORDERS).newAppend().appendFile(dataFile(late.table(ORDERS), flattener.schema().root(),
                flatten("{\"id\":\"late\"}").rows())).commit();
        late.table(ITEMS).newAppend().appendFile(dataFile(late.table(ITEMS),
                flattener.schema().findTable("orders__items").orElseThrow(),
                flatten("{\"id\":\"late\",\"items\":[{\"sku\":\"l\"}]}").rows())).commit();
        commit(List.of(flatten("{\"id\":\"b\",\"items\":[{\"sku\":\"y\"}]}")), List.of());

        assertThatThrownBy(late::commit).isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("moved since the batch read it");
        assertThat(read(ORDERS, "id")).containsExactlyInAnyOrder(List.of("a"), List.of("b"));
        assertThat(read(ITEMS, "_id")).containsExactlyInAnyOrder(List.of("a"), List.of("b"));
    }

    /** A row's place: the table, the data file and its position there. */
    private record Position(TableIdentifier table, String file, long position) {
    }

    private FlattenResult flatten(String json) {
        return flattener.flatten(new SourceDocument("orders", "p", ++lsn, json.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Commits the documents' rows in one batch across both tables (creating them on the first), deleting the rows at
     * {@code replaced}; returns where each document's rows landed, by id.
     */
    private Map<String, List<Position>> commit(List<FlattenResult> documents, List<Position> replaced) {
        CatalogBatch batch = new SqliteCatalogBatch(settings, new LocalFileIO());
        Map<String, List<Position>> positions = new HashMap<>();
        for (TableIdentifier identifier : List.of(ORDERS, ITEMS)) {
            TableSchema schema = flattener.schema().findTable(identifier.name()).orElseThrow();
            Transaction transaction = catalog.tableExists(identifier)
                    ? batch.table(identifier).newTransaction()
                    : batch.create(identifier, IcebergSchemas.of(schema),
                            LocalFileIO.locationOf(directory.resolve("warehouse/shop/" + identifier.name())),
                            Map.of());
            Table table = transaction.table();
            RowVectors rowVectors = new RowRecords(schema, table.schema()).vectors();
            DuckDbFileWriter writer = new DuckDbFileWriter(table, "batch-" + lsn + ".parquet", rowVectors,
                    writers);
            for (FlattenResult document : documents) {
                for (Row row : document.rows()) {
                    if (row.table().name().equals(identifier.name())) {
                        String id = (String) row.value(0);
                        positions.computeIfAbsent(id, key -> new ArrayList<>())
                                .add(new Position(identifier, writer.location(), writer.write(row, rowVectors)));
                    }
                }
            }
            DataFile file = writer.finish();
            RowDeletions deletions = new RowDeletions(vectors.getOrDefault(identifier, Map.of()));
            replaced.stream().filter(position -> position.table().equals(identifier))
                    .forEach(position -> deletions.delete(position.file(), position.position()));
            RowDelta delta = transaction.newRowDelta().addRows(file).set("docmirror.batch", String.valueOf(lsn));
            if (table.currentSnapshot() != null) {
                delta.validateFromSnapshot(table.currentSnapshot().snapshotId());
            }
            deletions.writeInto(table, delta::addDeletes, delta::removeDeletes);
            delta.commit();
            transaction.commitTransaction();
            vectors.put(identifier, deletions.committedAfter());
        }
        assertThat(batch.commit()).containsOnlyKeys(ORDERS, ITEMS);
        return positions;
    }

    private DataFile dataFile(Table table, TableSchema schema, List<Row> rows) {
        RowVectors rowVectors = new RowRecords(schema, table.schema()).vectors();
        DuckDbFileWriter writer = new DuckDbFileWriter(table, "late.parquet", rowVectors, writers);
        rows.stream().filter(row -> row.table().name().equals(schema.name()))
                .forEach(row -> writer.write(row, rowVectors));
        return writer.finish();
    }

    private List<List<Object>> read(TableIdentifier identifier, String... columns) {
        return IcebergRows.read(catalog.loadTable(identifier), columns);
    }
}
