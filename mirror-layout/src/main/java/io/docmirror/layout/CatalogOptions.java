package io.docmirror.layout;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;
import org.apache.iceberg.CatalogProperties;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * Which Iceberg catalog holds the mirror's tables ({@code mirror.catalog.*}), and where their files go: the embedded
 * SQLite catalog of the mirror directory, or an Iceberg REST catalog service; a local warehouse, or one in an
 * S3-compatible object store ({@code mirror.catalog.s3.*}), which either catalog can point at.
 *
 * <p>The options are declared here, in the layout module, and nowhere else: the mirror writes the tables through
 * them (its {@code MirrorConfig} lists them in the {@code mirror.*} section) and the SQL endpoint, which must not
 * depend on the mirror daemon, reads the tables through the same ones. So the section keeps its name for both and
 * docs/configuration.md documents it once.
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
    /** The prefix of the options below. */
    public static final String PREFIX = "mirror.catalog.";

    public static final ConfigOption TYPE = new ConfigOption("mirror.catalog.type", "sqlite",
            "The Iceberg catalog: `sqlite` (JdbcCatalog in the mirror directory's `catalog.db`, nothing to run) or "
                    + "`rest` (an Iceberg REST catalog service). The SQL endpoint, `status` and `reconcile` read the "
                    + "tables from the same catalog, so give them the same options.")
            .withRule(ConfigRule.oneOf("sqlite", "rest"));
    public static final ConfigOption URI = new ConfigOption("mirror.catalog.uri", "",
            "The REST catalog's base URI (`http://host:8181`).");
    public static final ConfigOption WAREHOUSE = new ConfigOption("mirror.catalog.warehouse", "",
            "Where the tables' files go, with either catalog: a local `file:` location, or `s3://bucket/prefix` in "
                    + "an S3-compatible object store (written through Iceberg's S3FileIO; `"
                    + ObjectStoreOptions.PREFIX + "*`); empty: the mirror directory's `warehouse/`. The SQL endpoint and "
                    + "status read either; reconcile, rebuild and repair read local warehouses only.");
    public static final ConfigOption CREDENTIAL = new ConfigOption("mirror.catalog.credential", "",
            "OAuth2 client credentials (`id:secret`) for the REST catalog; empty: none.");
    public static final ConfigOption TOKEN = new ConfigOption("mirror.catalog.token", "",
            "A bearer token for the REST catalog; empty: none.");
    /** This catalog's options, then the object store's ({@code mirror.catalog.s3.*}). */
    public static final List<ConfigOption> OPTIONS = Stream.concat(Stream.of(TYPE, URI, WAREHOUSE, CREDENTIAL, TOKEN),
            ObjectStoreOptions.OPTIONS.stream()).toList();

    public CatalogOptions {
        type = type.trim().toLowerCase(Locale.ROOT);
        requireNonNull(objectStore, "objectStore is null");
        TYPE.check(type);
        if (type.equals("rest") && uri.isBlank()) {
            throw URI.invalid("(empty)", "must name the REST catalog when " + TYPE.key() + " is rest");
        }
        if (!warehouse.isBlank() && !warehouse.startsWith("file:") && !ObjectStoreOptions.isObjectStore(warehouse)) {
            throw WAREHOUSE.invalid(warehouse, "must be a local file: location or an object store's "
                    + ObjectStoreOptions.SCHEME + "bucket/prefix");
        }
        if (ObjectStoreOptions.isObjectStore(warehouse)
                && warehouse.substring(ObjectStoreOptions.SCHEME.length()).replace("/", "").isEmpty()) {
            throw WAREHOUSE.invalid(warehouse, "must name a bucket");
        }
        if (!ObjectStoreOptions.isObjectStore(warehouse) && objectStore.isGiven()) {
            throw WAREHOUSE.invalid(warehouse.isBlank() ? "(empty)" : warehouse, "must be an object store's "
                    + ObjectStoreOptions.SCHEME + "bucket/prefix when " + ObjectStoreOptions.PREFIX
                    + "* options are given");
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

    /**
     * Reads the {@code mirror.catalog.*} entries of a config file's {@code mirror.*} section or of JDBC connection
     * properties; other keys are left to their own sections, missing ones take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown
     *     {@code mirror.catalog.*} key
     */
    public static CatalogOptions fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of(PREFIX, OPTIONS, properties);
        return new CatalogOptions(section.text(TYPE), section.text(URI).trim(), section.text(WAREHOUSE).trim(),
                section.text(CREDENTIAL), section.text(TOKEN), ObjectStoreOptions.from(section));
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
