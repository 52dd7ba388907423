package io.docmirror.layout;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;

import java.util.HashMap;
import java.util.Map;

/** Opens the Iceberg catalog that {@link CatalogSettings} describe. */
public final class MirrorCatalog {
    /**
     * JdbcCatalog's table schema: V1 adds the {@code iceberg_type} column (tables and views). pyiceberg, Trino and
     * Spark read both versions.
     */
    private static final String JDBC_SCHEMA_VERSION = "V1";

    private MirrorCatalog() {
    }

    /** The catalog, open: the caller closes it. */
    public static CatalogConnection open(CatalogSettings settings) {
        Map<String, String> properties = new HashMap<>(settings.properties());
        properties.put(CatalogProperties.URI, settings.uri());
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, settings.warehouse());
        return switch (settings.kind()) {
            case SQLITE -> {
                properties.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
                properties.put(JdbcCatalog.PROPERTY_PREFIX + "schema-version", JDBC_SCHEMA_VERSION);
                JdbcCatalog catalog = new JdbcCatalog();
                catalog.initialize(settings.name(), properties);
                yield new CatalogConnection(catalog, IcebergWorkers.start(settings.name()));
            }
            case REST -> {
                // Metrics reports are posted asynchronously and would outlive a closed client.
                properties.putIfAbsent("rest-metrics-reporting-enabled", "false");
                RESTCatalog catalog = new RESTCatalog();
                catalog.initialize(settings.name(), properties);
                yield new CatalogConnection(catalog, IcebergWorkers.start(settings.name()));
            }
        };
    }

    /**
     * The file access the catalog's tables are written through: the settings' {@code io-impl}
     * ({@link LocalFileIO} unless they name another, such as Iceberg's S3FileIO), with the settings' properties. The
     * caller closes it.
     */
    public static FileIO openFileIO(CatalogSettings settings) {
        String implementation = settings.properties().getOrDefault(CatalogProperties.FILE_IO_IMPL,
                LocalFileIO.class.getName());
        return CatalogUtil.loadFileIO(implementation, settings.properties(), null);
    }
}
