package io.docmirror.mirror;

import io.docmirror.config.ConfigSection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Which Iceberg catalog the mirror's tables go to ({@code mirror.catalog.*}), for {@code mirror.format: iceberg}: the
 * embedded SQLite catalog of the mirror directory, or an Iceberg REST catalog service.
 *
 * @param type {@code sqlite} or {@code rest}
 * @param uri the REST service's base URI
 * @param warehouse the warehouse the REST service is asked for (a local {@code file:} location)
 * @param credential OAuth2 client credentials ({@code id:secret}) for the REST service; empty: none
 * @param token a bearer token for the REST service; empty: none
 */
public record CatalogOptions(String type, String uri, String warehouse, String credential, String token) {
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
