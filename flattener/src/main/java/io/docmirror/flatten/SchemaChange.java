package io.docmirror.flatten;

import static java.util.Objects.requireNonNull;

/** Something a document added to the schema. Columns are only ever added or widened, never removed or renamed. */
public sealed interface SchemaChange {
    String table();

    /** A child table for an array of objects: {@code orders__items}. */
    record TableAdded(String table, String parent, JsonPath jsonPath) implements SchemaChange {
        public TableAdded {
            requireNonNull(table, "table is null");
            requireNonNull(parent, "parent is null");
            requireNonNull(jsonPath, "jsonPath is null");
        }
    }

    record ColumnAdded(String table, Column column) implements SchemaChange {
        public ColumnAdded {
            requireNonNull(table, "table is null");
            requireNonNull(column, "column is null");
        }
    }

    /** A column's type widened (BIGINT to DOUBLE, or a DECIMAL's scale grew); every value it held stays exact. */
    record ColumnWidened(String table, Column column, ColumnType from) implements SchemaChange {
        public ColumnWidened {
            requireNonNull(table, "table is null");
            requireNonNull(column, "column is null");
            requireNonNull(from, "from is null");
        }
    }
}
