package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.SystemColumn;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

import static io.docmirror.flatten.SystemColumn.PARTITION_KEY;

/**
 * Whose rows a data file of a flattened table holds: each row's document key, from the file's key columns (a root
 * row's {@code id} and {@code _pk}; a child row's {@code _id}, the id of the document it belongs to, and
 * {@code _pk}). How the document index is rebuilt from the tables, and how it learns whose rows a compaction moved.
 */
final class DocumentKeys {
    private DocumentKeys() {
    }

    /**
     * Hands each live row of {@code dataFile}, a file of {@code table}, to {@code row} with its position and its
     * document's key.
     *
     * @param root whether {@code table} is the container's root table
     * @param vector the file's deletion vector; null when it has none
     */
    static void read(Table table, boolean root, String dataFile, DeleteFile vector, DocumentIndex.KeyedRow row) {
        LiveRows.read(table.io(), dataFile, vector, table.schema().select(
                SystemColumn.documentId(root).columnName(), PARTITION_KEY.columnName()),
                (position, record) -> row.accept(position,
                        DocumentIndex.key((String) record.get(0), (String) record.get(1))));
    }

    /** Reads the rows of the data files of a container's tables, as the document index needs them. */
    static DocumentIndex.FileKeys reader(Catalog catalog, String container, String rootTable) {
        return (table, dataFile, row) -> read(catalog.loadTable(MirrorTables.table(container, table)),
                table.equals(rootTable), dataFile, null, row);
    }
}
