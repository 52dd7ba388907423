package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorCatalog;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The child process of {@link CatalogBatchCrashTest}: commits batches forever, each adding one row to each of three
 * tables in one {@link CatalogBatch}, and prints {@code committed <n>} after batch n. Its first line is "ready".
 */
public final class CatalogBatchWriter {
    static final Namespace NAMESPACE = Namespace.of("crash");
    static final List<TableIdentifier> TABLES = List.of(TableIdentifier.of(NAMESPACE, "root"),
            TableIdentifier.of(NAMESPACE, "root__child"), TableIdentifier.of(NAMESPACE, "history"));
    static final String BATCH = "docmirror.batch";
    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "batch", Types.LongType.get()));

    private CatalogBatchWriter() {
    }

    public static void main(String[] arguments) throws Exception {
        Path directory = Path.of(arguments[0]);
        CatalogSettings settings = CatalogSettings.embedded(directory);
        Catalog catalog = MirrorCatalog.open(settings).catalog();
        EncoderThreads encoders = new EncoderThreads("crash", 1, 1);
        if (!((SupportsNamespaces) catalog).namespaceExists(NAMESPACE)) {
            ((SupportsNamespaces) catalog).createNamespace(NAMESPACE);
        }
        long batch = committedBatch(catalog);
        System.out.println("ready");
        while (true) {
            batch++;
            CatalogBatch commit = new SqliteCatalogBatch(settings, new LocalFileIO());
            for (TableIdentifier identifier : TABLES) {
                Transaction transaction = batch == 1
                        ? commit.create(identifier, SCHEMA, LocalFileIO.locationOf(
                                directory.resolve("warehouse/crash/" + identifier.name())), Map.of())
                        : commit.table(identifier).newTransaction();
                Table table = transaction.table();
                DataFileWriter writer = new DataFileWriter(table, table.schema(),
                        "b" + batch + "-" + UUID.randomUUID() + ".parquet", encoders, false);
                GenericRecord row = GenericRecord.create(table.schema());
                row.setField("batch", batch);
                writer.write(row);
                transaction.newAppend().appendFile(writer.finish()).set(BATCH, Long.toString(batch)).commit();
                transaction.commitTransaction();
            }
            commit.commit();
            System.out.println("committed " + batch);
        }
    }

    /** The batch the catalog's tables hold; 0 before the first. */
    static long committedBatch(Catalog catalog) {
        if (!catalog.tableExists(TABLES.get(0))) {
            return 0;
        }
        Snapshot snapshot = catalog.loadTable(TABLES.get(0)).currentSnapshot();
        return Long.parseLong(snapshot.summary().get(BATCH));
    }
}
