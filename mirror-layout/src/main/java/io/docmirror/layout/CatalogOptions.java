package io.docmirror.layout;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which Iceberg catalog holds the mirror's tables ({@code mirror.catalog.*}): the embedded SQLite catalog of the mirror
 * directory, or an Iceberg REST catalog service.
 *
 * <p>The options are declared here, in the layout module, and nowhere else: the mirror writes the tables through
 * them (its {@code MirrorConfig} lists them in the {@code mirror.*} section) and the SQL endpoint, which must not
 * depend on the mirror daemon, reads the tables through the same ones. So the section keeps its name for both and
 * docs/configuration.md documents it once.
 *
 * @param type {@code sqlite} or {@code rest}
 * @param uri the REST service's base URI
 * @param warehouse the warehouse the REST service is asked for (a local {@code file:} location)
 * @param credential OAuth2 client credentials ({@code id:secret}) for the REST service; empty: none
 * @param token a bearer token for the REST service; empty: none
 */
public record CatalogOptions(String type, String uri, String warehouse, String credential, String token) {
    /** The prefix of the options below. */
    public static final String PREFIX = "mirror.catalog.";

    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("mirror.catalog.type", "sqlite",
                    "The Iceberg catalog: `sqlite` (JdbcCatalog in the mirror directory's "
                            + "`catalog.db`, nothing to run) or `rest` (an Iceberg REST catalog service). The SQL "
                            + "endpoint, `status` and `reconcile` read the tables from the same catalog, so give "
                            + "them the same options."),
            new ConfigOption("mirror.catalog.uri", "", "The REST catalog's base URI (`http://host:8181`)."),
            new ConfigOption("mirror.catalog.warehouse", "",
                    "The warehouse location the REST catalog is asked for, a local `file:` location; empty: the "
                            + "mirror directory's `warehouse/`."),
            new ConfigOption("mirror.catalog.credential", "",
                    "OAuth2 client credentials (`id:secret`) for the REST catalog; empty: none."),
            new ConfigOption("mirror.catalog.token", "", "A bearer token for the REST catalog; empty: none."));

    public CatalogOptions {
        type = type.trim().toLowerCase(Locale.ROOT);
        if (!type.equals("sqlite") && !type.equals("rest")) {
            throw ConfigSection.invalid("mirror.catalog.type", type, "must be sqlite or rest");
        }
        if (type.equals("rest") && uri.isBlank()) {
            throw ConfigSection.invalid("mirror.catalog.uri", uri, "must name the REST catalog when "
                    + "mirror.catalog.type is rest");
        }
        if (type.equals("rest") && !warehouse.isBlank() && !warehouse.startsWith("file:")) {
            throw ConfigSection.invalid("mirror.catalog.warehouse", warehouse, "must be a local file: location "
                    + "(object stores are not supported yet)");
        }
    }

    public static CatalogOptions embedded() {
        return new CatalogOptions("sqlite", "", "", "", "");
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
        return new CatalogOptions(section.text("mirror.catalog.type"), section.text("mirror.catalog.uri").trim(),
                section.text("mirror.catalog.warehouse").trim(), section.text("mirror.catalog.credential"),
                section.text("mirror.catalog.token"));
    }

    /** The catalog's settings for a mirror directory. */
    public CatalogSettings settings(Path mirrorDirectory) {
        if (type.equals("sqlite")) {
            return CatalogSettings.embedded(mirrorDirectory);
        }
        Map<String, String> properties = new HashMap<>();
        properties.put("io-impl", LocalFileIO.class.getName());
        if (!credential.isBlank()) {
            properties.put("credential", credential);
        }
        if (!token.isBlank()) {
            properties.put("token", token);
        }
        String location = warehouse.isBlank()
                ? CatalogSettings.embedded(mirrorDirectory).warehouse()
                : warehouse;
        return new CatalogSettings(CatalogSettings.Kind.REST, CatalogSettings.DEFAULT_NAME, uri, location,
                properties);
    }
}
