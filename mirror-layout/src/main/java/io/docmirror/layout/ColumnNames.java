package io.docmirror.layout;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whether DuckDB reading some of a snapshot's data files by column name gets what reading them by Iceberg field id
 * gets. It does when, in every schema the table has had, each field has the name and type it has in the snapshot's
 * schema, no two fields share a name up to case (DuckDB matches names without case), every name is one Iceberg's
 * Parquet writer keeps as it is (it spells others Avro's way: a space as {@code _x20}), and each of the snapshot's
 * columns is in at least one of the files read together (a scan by name knows only the columns some file has). A
 * file written before a column was added then reads NULL for it either way.
 *
 * <p>Which columns a file has comes from its Iceberg metrics (value counts by field id); files whose metrics leave a
 * column out are read by field id.
 */
final class ColumnNames {
    private final boolean namesAgree;
    /** The field ids of each of the snapshot's columns' values, by the column's position. */
    private final List<Set<Integer>> valueIds;
    /** Which of the snapshot's columns each data file holds, by local path. */
    private final Map<String, BitSet> held = new HashMap<>();

    private ColumnNames(boolean namesAgree, List<Types.NestedField> columns) {
        this.namesAgree = namesAgree;
        this.valueIds = columns.stream().map(column -> column.type().isPrimitiveType() ? Set.of(column.fieldId())
                : TypeUtil.getProjectedIds(column.type())).toList();
    }

    /** For a snapshot of {@code table} written with {@code schema}; then {@link #written} each of its files. */
    static ColumnNames of(Table table, Schema schema) {
        return new ColumnNames(namesAgree(table, schema), schema.columns());
    }

    private static boolean namesAgree(Table table, Schema schema) {
        Map<String, Integer> idByName = new HashMap<>();
        for (Schema version : table.schemas().values()) {
            for (Types.NestedField field : version.columns()) {
                if (!AvroSchemaUtil.makeCompatibleName(field.name()).equals(field.name())) {
                    return false;
                }
                Types.NestedField now = schema.findField(field.fieldId());
                if (now != null && (!now.name().equals(field.name()) || !now.type().equals(field.type()))) {
                    return false;
                }
                Integer before = idByName.putIfAbsent(field.name().toLowerCase(Locale.ROOT), field.fieldId());
                if (before != null && before != field.fieldId()) {
                    return false;
                }
            }
        }
        Set<String> names = new HashSet<>();
        return schema.columns().stream().allMatch(field -> names.add(field.name().toLowerCase(Locale.ROOT)));
    }

    /** Whether any of the files can be read by name: the files' column statistics are worth reading. */
    boolean mayReadByName() {
        return namesAgree;
    }

    /** Notes the columns {@code file}, at local path {@code path}, holds. */
    void written(String path, DataFile file) {
        BitSet columns = new BitSet(valueIds.size());
        Map<Integer, Long> counts = file.valueCounts();
        if (counts != null) {
            for (int column = 0; column < valueIds.size(); column++) {
                if (valueIds.get(column).stream().anyMatch(counts::containsKey)) {
                    columns.set(column);
                }
            }
        }
        held.put(path, columns);
    }

    /** Whether {@code files}, all noted, read right by column name in one scan. */
    boolean readByName(Collection<String> files) {
        if (!namesAgree) {
            return false;
        }
        BitSet columns = new BitSet(valueIds.size());
        files.forEach(file -> columns.or(held.get(file)));
        return columns.cardinality() == valueIds.size();
    }
}
