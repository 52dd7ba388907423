package io.docmirror.mirror;

import io.docmirror.config.ConfigSection;

import java.util.Locale;

/** How the mirror's tables are kept on disk ({@code mirror.format}). */
public enum MirrorFormat {
    /** Parquet files listed by docmirror's own manifest versions, read through its SQL endpoint. */
    MANIFEST,
    /** Apache Iceberg v3 tables in a catalog, which Spark, Trino, DuckDB and pyiceberg read too. */
    ICEBERG;

    static MirrorFormat parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "manifest" -> MANIFEST;
            case "iceberg" -> ICEBERG;
            default -> throw ConfigSection.invalid("mirror.format", text, "must be manifest or iceberg");
        };
    }
}
