package io.docmirror.layout;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;
import org.apache.iceberg.CatalogProperties;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * How the mirror reaches a warehouse in an S3-compatible object store ({@code mirror.catalog.s3.*}), through
 * Iceberg's own S3FileIO (module iceberg-aws, which the mirror ships; the properties are named here as Iceberg
 * documents them, so this module and the SQL endpoint need no AWS library): the endpoint (empty: AWS), the region,
 * path-style addressing, and a key pair (empty: the AWS SDK's default credential chain: environment, profile,
 * instance role).
 *
 * @param endpoint {@code mirror.catalog.s3.endpoint}: an S3-compatible service's URL; empty: AWS
 * @param region {@code mirror.catalog.s3.region}: the region requests are signed for; empty: the SDK's default chain
 * @param pathStyleAccess {@code mirror.catalog.s3.path-style-access}: {@code host/bucket/key} rather than
 *     {@code bucket.host/key}, as most S3-compatible services want
 * @param accessKeyId {@code mirror.catalog.s3.access-key-id}; empty: the SDK's default credential chain
 * @param secretAccessKey {@code mirror.catalog.s3.secret-access-key}; never shown ({@link #toString})
 */
public record ObjectStoreOptions(String endpoint, String region, boolean pathStyleAccess, String accessKeyId,
        String secretAccessKey) {
    /** The scheme of a warehouse location in an S3-compatible object store. */
    public static final String SCHEME = "s3://";
    /** The prefix of the options below, which {@link CatalogOptions#OPTIONS} lists after its own. */
    public static final String PREFIX = CatalogOptions.PREFIX + "s3.";
    public static final ConfigOption ENDPOINT = new ConfigOption("mirror.catalog.s3.endpoint", "",
            "The URL of an S3-compatible service (MinIO, Ceph, S3Proxy) for an `s3://` warehouse; empty: AWS S3.");
    public static final ConfigOption REGION = new ConfigOption("mirror.catalog.s3.region", "",
            "The region an `s3://` warehouse's requests are signed for (any one for most S3-compatible services, "
                    + "e.g. `us-east-1`); empty: the AWS SDK's default (`AWS_REGION`, `~/.aws/config`).");
    public static final ConfigOption PATH_STYLE_ACCESS = new ConfigOption("mirror.catalog.s3.path-style-access",
            "false", "Address an `s3://` warehouse's objects as `endpoint/bucket/key` rather than "
                    + "`bucket.endpoint/key`, as most S3-compatible services want.");
    public static final ConfigOption ACCESS_KEY_ID = new ConfigOption("mirror.catalog.s3.access-key-id", "",
            "The access key id for an `s3://` warehouse, with `mirror.catalog.s3.secret-access-key`; empty: the AWS "
                    + "SDK's default credential chain (environment, `~/.aws/credentials`, an instance or container "
                    + "role).");
    public static final ConfigOption SECRET_ACCESS_KEY = new ConfigOption("mirror.catalog.s3.secret-access-key", "",
            "The secret access key that goes with `" + ACCESS_KEY_ID.key() + "`; never logged or shown.");
    public static final List<ConfigOption> OPTIONS = List.of(ENDPOINT, REGION, PATH_STYLE_ACCESS, ACCESS_KEY_ID,
            SECRET_ACCESS_KEY);

    /** Iceberg's S3FileIO, and the catalog properties it reads (S3FileIOProperties, AwsClientProperties). */
    private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
    private static final String FILE_IO_ENDPOINT = "s3.endpoint";
    private static final String FILE_IO_REGION = "client.region";
    private static final String FILE_IO_PATH_STYLE_ACCESS = "s3.path-style-access";
    private static final String FILE_IO_ACCESS_KEY_ID = "s3.access-key-id";
    private static final String FILE_IO_SECRET_ACCESS_KEY = "s3.secret-access-key";
    private static final String FILE_IO_HTTP_CLIENT_TYPE = "http-client.type";

    public ObjectStoreOptions {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(region, "region is null");
        requireNonNull(accessKeyId, "accessKeyId is null");
        requireNonNull(secretAccessKey, "secretAccessKey is null");
        if (!endpoint.isBlank() && !endpoint.startsWith("http://") && !endpoint.startsWith("https://")) {
            throw ENDPOINT.invalid(endpoint, "must be an http:// or https:// URL");
        }
        if (accessKeyId.isBlank() != secretAccessKey.isBlank()) {
            // The value is a secret (or its absence): the message names the keys only.
            throw new IllegalArgumentException("Invalid configuration " + ACCESS_KEY_ID.key() + " and "
                    + SECRET_ACCESS_KEY.key() + ": give both, or neither for the AWS SDK's default credential chain");
        }
    }

    /** The options read from a section that declares {@link #OPTIONS}. */
    static ObjectStoreOptions from(ConfigSection section) {
        return new ObjectStoreOptions(section.text(ENDPOINT).trim(), section.text(REGION).trim(),
                section.booleanValue(PATH_STYLE_ACCESS), section.text(ACCESS_KEY_ID).trim(),
                section.text(SECRET_ACCESS_KEY));
    }

    /** None given: AWS, the SDK's default region and credential chains, virtual-host addressing. */
    public static ObjectStoreOptions none() {
        return new ObjectStoreOptions("", "", false, "", "");
    }

    /** Whether any option differs from {@link #none}: they mean nothing for a local warehouse. */
    boolean isGiven() {
        return !equals(none());
    }

    /** Whether {@code warehouse} is a location in an object store ({@value #SCHEME}). */
    static boolean isObjectStore(String warehouse) {
        return warehouse.startsWith(SCHEME);
    }

    /** The catalog properties that make Iceberg read and write the warehouse through S3FileIO. */
    Map<String, String> fileIoProperties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.FILE_IO_IMPL, S3_FILE_IO);
        // The JDK's HttpURLConnection: Iceberg's default, "apache", wants an SDK module the mirror does not ship.
        properties.put(FILE_IO_HTTP_CLIENT_TYPE, "urlconnection");
        if (!endpoint.isBlank()) {
            properties.put(FILE_IO_ENDPOINT, endpoint);
        }
        if (!region.isBlank()) {
            properties.put(FILE_IO_REGION, region);
        }
        properties.put(FILE_IO_PATH_STYLE_ACCESS, Boolean.toString(pathStyleAccess));
        if (!accessKeyId.isBlank()) {
            properties.put(FILE_IO_ACCESS_KEY_ID, accessKeyId);
            properties.put(FILE_IO_SECRET_ACCESS_KEY, secretAccessKey);
        }
        return properties;
    }

    @Override
    public String toString() {
        return "ObjectStoreOptions[endpoint=" + endpoint + ", region=" + region + ", pathStyleAccess="
                + pathStyleAccess + ", accessKeyId=" + accessKeyId + ", secretAccessKey="
                + (secretAccessKey.isBlank() ? "" : "(hidden)") + "]";
    }
}
