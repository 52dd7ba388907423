package io.docmirror.layout;

import io.docmirror.config.ConfigSection;
import org.apache.iceberg.CatalogProperties;

import java.util.HashMap;
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
    /** Iceberg's S3FileIO, and the catalog properties it reads (S3FileIOProperties, AwsClientProperties). */
    private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
    private static final String ENDPOINT = "s3.endpoint";
    private static final String REGION = "client.region";
    private static final String PATH_STYLE_ACCESS = "s3.path-style-access";
    private static final String ACCESS_KEY_ID = "s3.access-key-id";
    private static final String SECRET_ACCESS_KEY = "s3.secret-access-key";
    private static final String HTTP_CLIENT_TYPE = "http-client.type";

    public ObjectStoreOptions {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(region, "region is null");
        requireNonNull(accessKeyId, "accessKeyId is null");
        requireNonNull(secretAccessKey, "secretAccessKey is null");
        if (!endpoint.isBlank() && !endpoint.startsWith("http://") && !endpoint.startsWith("https://")) {
            throw ConfigSection.invalid("mirror.catalog.s3.endpoint", endpoint, "must be an http:// or https:// URL");
        }
        if (accessKeyId.isBlank() != secretAccessKey.isBlank()) {
            // The value is a secret (or its absence): the message names the keys only.
            throw new IllegalArgumentException("Invalid configuration mirror.catalog.s3.access-key-id and "
                    + "mirror.catalog.s3.secret-access-key: give both, or neither for the AWS SDK's default credential "
                    + "chain");
        }
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
        properties.put(HTTP_CLIENT_TYPE, "urlconnection");
        if (!endpoint.isBlank()) {
            properties.put(ENDPOINT, endpoint);
        }
        if (!region.isBlank()) {
            properties.put(REGION, region);
        }
        properties.put(PATH_STYLE_ACCESS, Boolean.toString(pathStyleAccess));
        if (!accessKeyId.isBlank()) {
            properties.put(ACCESS_KEY_ID, accessKeyId);
            properties.put(SECRET_ACCESS_KEY, secretAccessKey);
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
