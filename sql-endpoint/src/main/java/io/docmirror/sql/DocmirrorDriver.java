package io.docmirror.sql;

import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.MirrorLayout;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The in-process JDBC driver: {@code jdbc:docmirror:<data directory>} connects to the mirror of that data directory
 * with everything {@link SqlEndpoint} enforces. Connection properties {@code sql.*} (docs/configuration.md) set
 * the limits, and {@code mirror.catalog.*} the catalog the mirror keeps its tables in (the embedded one when none is
 * given). Each connection has an endpoint of its own, closed with it; an application that opens many
 * connections shares one with {@link SqlEndpoint#open} and {@link SqlEndpoint#connect} instead.
 */
public final class DocmirrorDriver implements Driver {
    public static final String URL_PREFIX = "jdbc:docmirror:";

    static {
        try {
            DriverManager.registerDriver(new DocmirrorDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        String location = url.substring(URL_PREFIX.length());
        if (location.isBlank()) {
            throw new SQLException("The JDBC URL names no data directory: use " + URL_PREFIX + "/path/to/data");
        }
        Map<String, String> properties = new TreeMap<>();
        if (info != null) {
            info.stringPropertyNames().stream()
                    .filter(key -> key.startsWith(SqlConfig.PREFIX) || key.startsWith(CatalogOptions.PREFIX))
                    .forEach(key -> properties.put(key, info.getProperty(key)));
        }
        SqlConfig config;
        CatalogOptions catalog;
        try {
            config = SqlConfig.fromProperties(properties);
            catalog = CatalogOptions.fromProperties(properties);
        } catch (IllegalArgumentException e) {
            throw new SQLException(e.getMessage(), "HY024", e);
        }
        SqlEndpoint endpoint = SqlEndpoint.open(MirrorLayout.mirrorDirectory(Path.of(location)), catalog, config);
        try {
            return EndpointConnection.open(endpoint, endpoint::close);
        } catch (SQLException | RuntimeException e) {
            endpoint.close();
            throw e;
        }
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(URL_PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return Stream.concat(SqlConfig.OPTIONS.stream(), CatalogOptions.OPTIONS.stream()).map(option -> {
            DriverPropertyInfo property = new DriverPropertyInfo(option.key(), option.defaultValue().orElse(null));
            property.description = option.description();
            return property;
        }).toArray(DriverPropertyInfo[]::new);
    }

    @Override
    public int getMajorVersion() {
        return 0;
    }

    @Override
    public int getMinorVersion() {
        return 1;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("docmirror logs through SLF4J");
    }
}
