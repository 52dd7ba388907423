package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Column;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.MirrorProperties;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Brings a table's Iceberg schema to the flattener's, in the batch's transaction: a new column is added (with its
 * JSON path as the field's doc); a widened one is replaced, since Iceberg promotes none of the flattener's widenings
 * (BIGINT → DOUBLE → DECIMAL, a DECIMAL's scale): the old field goes, a field of the same name, place and the wider
 * type comes, and the files holding the old field's values are rewritten ({@link RowCopier}).
 */
final class SchemaEvolution {
    private SchemaEvolution() {
    }

    /** Copies the rows of the files holding values of widened columns ({@link RowCopier}, {@link FileCopier}). */
    @FunctionalInterface
    interface WideningCopy {
        /**
         * @param before the table's schema before the widening
         * @param after the table's schema after it
         * @param widened the names of the widened columns
         * @param vectors the table's committed deletion vectors, by data file
         */
        void widen(Schema before, Schema after, Set<String> widened, Map<String, DeleteFile> vectors);
    }

    /**
     * @param copier copies the rows of files holding a widened column's values
     * @param vectors the table's committed deletion vectors, by data file
     * @return whether the table's schema changed
     */
    static boolean evolve(TableChanges table, TableSchema schema, WideningCopy copier,
            Map<String, DeleteFile> vectors) {
        Schema before = table.table().schema();
        UpdateSchema update = null;
        Set<String> widened = new HashSet<>();
        List<Column> columns = schema.columns();
        for (Column column : columns) {
            Types.NestedField field = before.findField(column.name());
            Type type = IcebergSchemas.type(column.type());
            if (field != null && sameType(field.type(), type)) {
                continue;
            }
            if (update == null) {
                update = table.transaction().updateSchema();
            }
            if (field != null) {
                update.deleteColumn(column.name());
                widened.add(column.name());
            }
            // A top-level column by its whole name: a flattened name may hold a dot (a JSON key "f.*o"), which the
            // one-name form would read as a path into a struct.
            update.addColumn(null, column.name(), type, column.jsonPath().toString());
        }
        if (update == null) {
            return false;
        }
        table.roll();
        update.commit();
        if (!widened.isEmpty()) {
            keepColumnOrder(table, columns, widened);
        }
        table.transaction().updateProperties().set(MirrorProperties.COLUMN_ROLES, ContainerTables.columnRoles(schema))
                .commit();
        if (!widened.isEmpty()) {
            copier.widen(before, table.table().schema(), widened, vectors);
        }
        return true;
    }

    /** Puts each replaced column back at its place, as readers of the table expect it: after its predecessor. */
    private static void keepColumnOrder(TableChanges table, List<Column> columns, Set<String> replaced) {
        UpdateSchema moves = table.transaction().updateSchema();
        for (int index = 0; index < columns.size(); index++) {
            String name = columns.get(index).name();
            if (!replaced.contains(name)) {
                continue;
            }
            if (index == 0) {
                moves.moveFirst(name);
            } else {
                moves.moveAfter(name, columns.get(index - 1).name());
            }
        }
        moves.commit();
    }

    private static boolean sameType(Type committed, Type wanted) {
        // List element ids differ between a committed schema and a freshly made type; compare the shapes.
        return committed.toString().equals(wanted.toString());
    }
}
