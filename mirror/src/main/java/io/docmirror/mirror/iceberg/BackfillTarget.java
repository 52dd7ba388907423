package io.docmirror.mirror.iceberg;

import org.apache.iceberg.Table;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * What a part of a backfill written elsewhere ({@link PartWriter}) writes its data files against: each of the
 * container's tables as the backfill's batch stages it (schema, location, file access, write properties; Iceberg's
 * serializable copies), the final schema of the flattener, and how the files are named and cut. It travels to the
 * machines that write the parts (a Spark executor).
 *
 * @param container the container's name
 * @param schema the flattener's final schema, without tallies ({@code SchemaCodec.structureToJson})
 * @param tables the container's flattened tables, its history and its dead letters, by name
 * @param batch the batch's number, which starts the data files' names
 * @param fileRows how many rows a data file holds at most ({@code mirror.parquet.file-rows})
 */
public record BackfillTarget(String container, String schema, Map<String, Table> tables, long batch, long fileRows)
        implements Serializable {
    public BackfillTarget {
        requireNonNull(container, "container is null");
        requireNonNull(schema, "schema is null");
        tables = Map.copyOf(tables);
    }

    /** One of the tables, by name. */
    Table table(String name) {
        Table table = tables.get(name);
        if (table == null) {
            throw new IllegalArgumentException("The backfill of " + container + " has no table " + name);
        }
        return table;
    }

    Set<String> tableNames() {
        return tables.keySet();
    }
}
