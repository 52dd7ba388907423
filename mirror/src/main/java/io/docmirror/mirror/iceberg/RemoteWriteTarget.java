package io.docmirror.mirror.iceberg;

import org.apache.iceberg.Table;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * What a writer on another machine writes its data files against: each of the container's tables (schema, location,
 * file access, write properties; Iceberg's serializable copies), the flattener's schema, and how the files are named
 * and cut. A part of a backfill ({@link PartWriter}, on a Spark executor) gets the tables as the backfill's batch
 * stages them; a shard of a stream ({@link ShardWriter}, on a Flink task) gets them as the catalog last committed
 * them.
 *
 * @param container the container's name
 * @param schema the flattener's schema, without tallies ({@code SchemaCodec.structureToJson})
 * @param tables the container's flattened tables, its history and its dead letters, by name
 * @param batch the number that starts the data files' names: the backfill's batch, or the stream's checkpoint
 * @param fileRows how many rows a data file that lasts holds at most ({@code mirror.parquet.file-rows})
 */
public record RemoteWriteTarget(String container, String schema, Map<String, Table> tables, long batch, long fileRows)
        implements Serializable {
    public RemoteWriteTarget {
        requireNonNull(container, "container is null");
        requireNonNull(schema, "schema is null");
        tables = Map.copyOf(tables);
    }

    /** One of the tables, by name. */
    Table table(String name) {
        Table table = tables.get(name);
        if (table == null) {
            throw new IllegalArgumentException("The tables of " + container + " written here have no table " + name);
        }
        return table;
    }

    /** Whether the tables include {@code name}. */
    boolean has(String name) {
        return tables.containsKey(name);
    }

    Set<String> tableNames() {
        return tables.keySet();
    }
}
