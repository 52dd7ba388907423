package io.docmirror.mirror;

import io.docmirror.config.ConfigSection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import org.apache.iceberg.CatalogProperties;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Which Iceberg catalog the mirror's tables go to ({@code mirror.catalog.*}), and where their files go: the embedded
 * SQLite catalog of the mirror directory, or an Iceberg REST catalog service; a local warehouse, or one in an
 * S3-compatible object store ({@code mirror.catalog.s3.*}), which either catalog can point at.
 *
 * @param type {@code sqlite} or {@code rest}
 * @param uri the REST service's base URI
 * @param warehouse where the tables' files go: a local {@code file:} location or {@code s3://bucket/prefix}; empty: the
 *     mirror directory's {@code warehouse/}
 * @param credential OAuth2 client credentials ({@code id:secret}) for the REST service; empty: none
 * @param token a bearer token for the REST service; empty: none
 * @param objectStore how an {@code s3://} warehouse is reached
 */
public record CatalogOptions(String type, String uri, String warehouse, String credential, String token,
        ObjectStoreOptions objectStore) {
    public CatalogOptions {
        type = type.trim().toLowerCase(Locale.ROOT);
        requireNonNull(objectStore, "objectStore is null");
        if (!type.equals("sqlite") && !type.equals("rest")) {
            throw ConfigSection.invalid("mirror.catalog.type", type, "must be sqlite or rest");
        }
        if (type.equals("rest") && uri.isBlank()) {
            throw ConfigSection.invalid("mirror.catalog.uri", uri, "must name the REST catalog when "
                    + "mirror.catalog.type is rest");
        }
        if (!warehouse.isBlank() && !warehouse.startsWith("file:") && !ObjectStoreOptions.isObjectStore(warehouse)) {
            throw ConfigSection.invalid("mirror.catalog.warehouse", warehouse, "must be a local file: location or "
                    + "an object store's " + ObjectStoreOptions.SCHEME + "bucket/prefix");
        }
        if (ObjectStoreOptions.isObjectStore(warehouse)
                && warehouse.substring(ObjectStoreOptions.SCHEME.length()).replace("/", "").isEmpty()) {
            throw ConfigSection.invalid("mirror.catalog.warehouse", warehouse, "must name a bucket");
        }
        if (!ObjectStoreOptions.isObjectStore(warehouse) && objectStore.isGiven()) {
            throw ConfigSection.invalid("mirror.catalog.warehouse", warehouse.isBlank() ? "(empty)" : warehouse,
                    "must be an object store's " + ObjectStoreOptions.SCHEME + "bucket/prefix when "
                            + "mirror.catalog.s3.* options are given");
        }
    }

    /** A catalog whose warehouse, if any, is local. */
    public CatalogOptions(String type, String uri, String warehouse, String credential, String token) {
        this(type, uri, warehouse, credential, token, ObjectStoreOptions.none());
    }

    public static CatalogOptions embedded() {
        return new CatalogOptions("sqlite", "", "", "", "");
    }

    /** Whether the tables' files go to an object store rather than a local disk. */
    public boolean objectStoreWarehouse() {
        return ObjectStoreOptions.isObjectStore(warehouse);
    }

    /** The catalog's settings for a mirror directory. */
    public CatalogSettings settings(Path mirrorDirectory) {
        CatalogSettings embedded = CatalogSettings.embedded(mirrorDirectory);
        Map<String, String> properties = new HashMap<>();
        if (objectStoreWarehouse()) {
            properties.putAll(objectStore.fileIoProperties());
        } else {
            properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        String location = warehouse.isBlank() ? embedded.warehouse() : warehouse;
        if (type.equals("sqlite")) {
            return warehouse.isBlank() ? embedded
                    : new CatalogSettings(CatalogSettings.Kind.SQLITE, embedded.name(), embedded.uri(), location,
                            properties);
        }
        if (!credential.isBlank()) {
            properties.put("credential", credential);
        }
        if (!token.isBlank()) {
            properties.put("token", token);
        }
        return new CatalogSettings(CatalogSettings.Kind.REST, CatalogSettings.DEFAULT_NAME, uri, location,
                properties);
    }

    @Override
    public String toString() {
        return "CatalogOptions[type=" + type + ", uri=" + uri + ", warehouse=" + warehouse + ", credential="
                + hidden(credential) + ", token=" + hidden(token) + ", objectStore=" + objectStore + "]";
    }

    private static String hidden(String secret) {
        return secret.isBlank() ? "" : "(hidden)";
    }
}
