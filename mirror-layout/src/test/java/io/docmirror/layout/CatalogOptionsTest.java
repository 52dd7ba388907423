package io.docmirror.layout;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CatalogOptionsTest {
    @Test
    void aConfigFileSetsEachOption() {
        CatalogOptions options = CatalogOptions.fromProperties(Map.of("mirror.catalog.type", " REST ",
                "mirror.catalog.uri", "http://catalog:8181", "mirror.catalog.warehouse", "s3://bucket/mirror",
                "mirror.catalog.token", "t", "mirror.catalog.s3.endpoint", "http://minio:9000",
                "mirror.catalog.s3.region", "us-east-1", "mirror.catalog.s3.path-style-access", "true",
                "mirror.catalog.s3.access-key-id", "id", "mirror.catalog.s3.secret-access-key", "s3cr3tValue",
                "mirror.batch.max-events", "10"));

        assertThat(options).isEqualTo(new CatalogOptions("rest", "http://catalog:8181", "s3://bucket/mirror", "",
                "t", new ObjectStoreOptions("http://minio:9000", "us-east-1", true, "id", "s3cr3tValue")));
        assertThat(options.toString()).doesNotContain("s3cr3tValue");
        assertThat(CatalogOptions.fromProperties(Map.of())).isEqualTo(CatalogOptions.embedded());
    }

    @Test
    void badValuesAreRefusedNamingTheKeyAndTheRule() {
        assertRefused(Map.of("mirror.catalog.type", "hive"),
                "Invalid value hive for configuration mirror.catalog.type: must be one of sqlite, rest");
        assertRefused(Map.of("mirror.catalog.type", "rest"), "Invalid value (empty) for configuration "
                + "mirror.catalog.uri: must name the REST catalog when mirror.catalog.type is rest");
        assertRefused(Map.of("mirror.catalog.warehouse", "/tmp/w"), "Invalid value /tmp/w for configuration "
                + "mirror.catalog.warehouse: must be a local file: location or an object store's s3://bucket/prefix");
        assertRefused(Map.of("mirror.catalog.warehouse", "s3:///"),
                "Invalid value s3:/// for configuration mirror.catalog.warehouse: must name a bucket");
        assertRefused(Map.of("mirror.catalog.s3.region", "us-east-1"), "Invalid value (empty) for configuration "
                + "mirror.catalog.warehouse: must be an object store's s3://bucket/prefix when mirror.catalog.s3.* "
                + "options are given");
        assertRefused(Map.of("mirror.catalog.warehouse", "s3://b", "mirror.catalog.s3.endpoint", "minio:9000"),
                "Invalid value minio:9000 for configuration mirror.catalog.s3.endpoint: must be an http:// or "
                        + "https:// URL");
        assertRefused(Map.of("mirror.catalog.warehouse", "s3://b", "mirror.catalog.s3.secret-access-key", "secret"),
                "Invalid configuration mirror.catalog.s3.access-key-id and mirror.catalog.s3.secret-access-key: "
                        + "give both, or neither for the AWS SDK's default credential chain");
        assertRefused(Map.of("mirror.catalog.s3.path-style", "true"), "Unknown configuration "
                + "mirror.catalog.s3.path-style (did you mean mirror.catalog.s3.path-style-access?); see "
                + "docs/configuration.md");
    }

    private static void assertRefused(Map<String, String> properties, String message) {
        assertThatThrownBy(() -> CatalogOptions.fromProperties(properties))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
