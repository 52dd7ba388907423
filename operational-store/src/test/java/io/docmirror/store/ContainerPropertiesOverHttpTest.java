package io.docmirror.store;

import io.docmirror.store.http.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Container properties are read strictly (issue 27, defect 5): a property of the wrong JSON type is refused with 400
 * naming the property and the rule, never read as something else ({@code "analyticalTtl":"x"} used to become 0, a
 * container that is silently not mirrored).
 */
class ContainerPropertiesOverHttpTest {
    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;

    @BeforeEach
    void setUp() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
    }

    @AfterEach
    void tearDown() {
        server.close();
        embedded.close();
    }

    @Test
    void propertiesOfTheWrongTypeAreRefusedNamingThePropertyAndTheRule() throws Exception {
        Map<String, String> refusals = Map.ofEntries(
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"analyticalTtl\":\"x\"}",
                        "Cannot create container c: 'analyticalTtl' must be an integer (seconds: -1, 0, or a positive "
                                + "number) from -2147483648 to 2147483647, not the string \\\"x\\\""),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":1.5}",
                        "'defaultTtl' must be an integer (seconds: -1, or a positive number; absent for no TTL) from "
                                + "-2147483648 to 2147483647, not a number with a fraction or an exponent"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":true}",
                        "'defaultTtl' must be an integer"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"analyticalTtl\":1e2147483647}",
                        "'analyticalTtl' must be an integer"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"logPartitions\":4294967296}",
                        "'logPartitions' must be an integer (1 to 1024) from -2147483648 to 2147483647, not an integer "
                                + "out of that range"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"logPartitions\":\"4\"}",
                        "'logPartitions' must be an integer"),
                Map.entry("{\"id\":5,\"partitionKeyPath\":\"/k\"}",
                        "Cannot create container: 'id' must be a string, not an integer"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":[\"/k\"]}",
                        "Cannot create container: 'partitionKeyPath' must be a string, not an array"),
                Map.entry("{\"id\":\"c\"}", "Cannot create container: 'partitionKeyPath' must be a string, not missing"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTTL\":60}",
                        "Cannot create container: unknown property 'defaultTTL'; a container's properties are id, "
                                + "partitionKeyPath, defaultTtl, analyticalTtl, logPartitions and partitionHashing"),
                Map.entry("[{\"id\":\"c\",\"partitionKeyPath\":\"/k\"}]",
                        "Cannot create container: the body must be a JSON object"),
                Map.entry("", "Request body is empty"));
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            RawHttp.Response response = RawHttp.request("POST", "/containers").body(refusal.getKey())
                    .send(server.port());

            assertThat(response.status()).as("%s: %s", refusal.getKey(), response).isEqualTo(400);
            assertThat(response.bodyText()).as(refusal.getKey())
                    .startsWith("{\"code\":\"BAD_REQUEST\",\"status\":400,\"message\":")
                    .contains(refusal.getValue());
        }
        assertThat(embedded.listContainers()).isEmpty();
    }

    @Test
    void validPropertiesStillCreateTheContainer() throws Exception {
        RawHttp.Response response = RawHttp.request("POST", "/containers").body("{\"id\":\"c\",\"partitionKeyPath\":"
                + "\"/k\",\"defaultTtl\":null,\"analyticalTtl\":-1,\"logPartitions\":2,\"_rid\":\"ignored\"}")
                .send(server.port());

        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        ContainerProperties created = embedded.readContainer("c");
        assertThat(created.withResourceId(null)).isEqualTo(new ContainerProperties("c", "/k", null, -1, 2));
        assertThat(created.resourceId()).isNotEqualTo("ignored");
    }
}
