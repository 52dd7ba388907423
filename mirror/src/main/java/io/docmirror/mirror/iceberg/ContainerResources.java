package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.ScratchDirectory;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What one container's open tables work with: the catalog and its file access, the configuration, the document
 * index, the threads and DuckDB connections that write data files, and the observer of a commit's steps.
 * {@link ContainerTables} opens and closes them; its batches ({@link BatchWriter}, {@link BatchCommit}) and its upkeep
 * ({@link TableUpkeep}) share them.
 *
 * @param analyticalTtl the container's analytical TTL in seconds (-1: forever), recorded on the root table for
 *     readers; empty for tables opened by name (a rebuild, a repair), which leave the recorded one as it is and apply
 *     none
 * @param rows where each document's rows are
 * @param scratch where DuckDB writes a data file before it is copied into its table, and spills
 * @param observer told of each step of every commit ({@link CommitObserver#NONE} but in a crash test)
 */
record ContainerResources(String container, CatalogSettings settings, CatalogConnection catalog, FileIO io,
        FlattenerConfig flattenerConfig, MirrorConfig config, OptionalLong analyticalTtl, DocumentIndex rows,
        EncoderThreads encoders, DuckDbWriters writers, ScratchDirectory scratch, CommitObserver observer) {

    /** The identifier of one of the container's tables. */
    TableIdentifier table(String name) {
        return MirrorTables.table(container, name);
    }

    String rootTable() {
        return flattenerConfig.rootTable();
    }

    /** A new catalog commit of several tables at once. */
    CatalogBatch newCatalogBatch() {
        return CatalogBatch.of(settings, catalog, io, observer);
    }

    /** A new table's properties: the mirror's Parquet options and {@code own}. */
    Map<String, String> tableProperties(Map<String, String> own) {
        Map<String, String> properties = new HashMap<>(own);
        properties.put(TableProperties.PARQUET_COMPRESSION,
                config.parquet().compression().name().toLowerCase(Locale.ROOT));
        properties.put(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(config.parquet().rowGroupBytes()));
        properties.put(TableProperties.PARQUET_PAGE_SIZE_BYTES, Integer.toString(config.parquet().pageBytes()));
        return properties;
    }
}
