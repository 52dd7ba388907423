package io.docmirror.store;

import io.docmirror.store.server.StoreHttpServer;
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
 * container that is silently not mirrored). So are the properties of a replace ({@code PUT /containers/{c}}).
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
                                + "number) from -2147483648 to 2147483647, not the string \"x\""),
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
        assertRefused("POST", "/containers", refusals);
        assertThat(embedded.listContainers()).isEmpty();
    }

    @Test
    void validPropertiesStillCreateTheContainer() throws Exception {
        RawHttp.Response response = RawHttp.request("POST", "/containers").body("{\"id\":\"c\",\"partitionKeyPath\":"
                + "\"/k\",\"defaultTtl\":null,\"analyticalTtl\":-1,\"logPartitions\":2,\"_rid\":\"ignored\"}")
                .send(server.port());

        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        ContainerProperties created = embedded.readContainer("c");
        assertThat(created.withResourceId(null).withEtag(null)).isEqualTo(new ContainerProperties("c", "/k", null, -1, 2));
        assertThat(created.resourceId()).isNotEqualTo("ignored");
    }

    @Test
    void aReplaceIsReadAsStrictlyAndARefusedOneChangesNothing() throws Exception {
        ContainerProperties before = embedded.createContainer(new ContainerProperties("c", "/k", 60, -1, 2));
        Map<String, String> refusals = Map.ofEntries(
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":\"3600\"}",
                        "Cannot replace container c: 'defaultTtl' must be an integer (seconds: -1, or a positive "
                                + "number; absent for no TTL) from -2147483648 to 2147483647, not the string"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":0}",
                        "Container c cannot have default TTL 0: it must be absent, -1 or a positive number of seconds"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":-5}",
                        "Container c cannot have default TTL -5"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"analyticalTtl\":-2}",
                        "Container c cannot have analytical TTL -2: it must be absent, 0, -1 or a positive number"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"analyticalTtl\":0}",
                        "Cannot replace container c: its analytical store cannot be turned off"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":1.0}",
                        "'defaultTtl' must be an integer"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/other\"}",
                        "Cannot replace container c: its partition key cannot be changed (it is /k, the replace asks "
                                + "for /other)"),
                Map.entry("{\"id\":\"d\",\"partitionKeyPath\":\"/k\"}",
                        "Cannot replace container c: its id cannot be changed (the replace names d)"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"logPartitions\":4}",
                        "Cannot replace container c: its log partitions cannot be changed (it has 2, the replace asks "
                                + "for 4)"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"partitionHashing\":\"murmur\"}",
                        "Cannot replace container c: 'partitionHashing' is an unknown partition hashing 'murmur'"),
                Map.entry("{\"partitionKeyPath\":\"/k\",\"defaultTtl\":60}",
                        "Cannot replace container c: 'id' must be a string, not missing"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"ttl\":60}",
                        "Cannot replace container c: unknown property 'ttl'"),
                Map.entry("{\"id\":\"c\",\"partitionKeyPath\":\"/k\"", "Request body is not valid JSON"),
                Map.entry("null", "Cannot replace container c: the body must be a JSON object"));
        assertRefused("PUT", "/containers/c", refusals);
        RawHttp.Response stale = RawHttp.request("PUT", "/containers/c").header("If-Match", "\"stale\"")
                .body("{\"id\":\"c\",\"partitionKeyPath\":\"/k\"}").send(server.port());
        RawHttp.Response missing = RawHttp.request("PUT", "/containers/nope")
                .body("{\"id\":\"nope\",\"partitionKeyPath\":\"/k\"}").send(server.port());

        assertThat(stale.status()).as(stale.toString()).isEqualTo(412);
        assertThat(missing.status()).as(missing.toString()).isEqualTo(404);
        assertThat(embedded.listContainers()).containsExactly(before);
    }

    @Test
    void whatAReadGivesCanBeChangedAndPutBack() throws Exception {
        embedded.createContainer(new ContainerProperties("c", "/k", null, null, 2)
                .withPartitionHashing(ContainerProperties.PartitionHashing.COSMOS_HASH_V2));
        String read = RawHttp.request("GET", "/containers/c").send(server.port()).bodyText();
        String etag = embedded.readContainer("c").etag();

        RawHttp.Response replaced = RawHttp.request("PUT", "/containers/c").header("If-Match", etag)
                .body(read.replace("\"partitionKeyPath\":\"/k\"", "\"partitionKeyPath\":\"/k\",\"defaultTtl\":-1"))
                .send(server.port());
        RawHttp.Response shortForm = RawHttp.request("PUT", "/containers/c")
                .body("{\"id\":\"c\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":30,\"analyticalTtl\":-1}")
                .send(server.port());

        assertThat(replaced.status()).as(replaced.toString()).isEqualTo(200);
        assertThat(shortForm.status()).as(shortForm.toString()).isEqualTo(200);
        ContainerProperties now = embedded.readContainer("c");
        assertThat(now.withEtag(null)).isEqualTo(new ContainerProperties("c", "/k", 30, -1, 2)
                .withPartitionHashing(ContainerProperties.PartitionHashing.COSMOS_HASH_V2)
                .withResourceId(now.resourceId()));
        assertThat(StoreJson.mapper().readValue(shortForm.body(), ContainerProperties.class)).isEqualTo(now);
    }

    /** Each body sent to the route is refused with 400 and a message that contains its text (JSON-escaped). */
    private void assertRefused(String method, String route, Map<String, String> refusals) throws Exception {
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            RawHttp.Response response = RawHttp.request(method, route).body(refusal.getKey()).send(server.port());

            assertThat(response.status()).as("%s: %s", refusal.getKey(), response).isEqualTo(400);
            assertThat(response.bodyText()).as(refusal.getKey())
                    .startsWith("{\"code\":\"BAD_REQUEST\",\"status\":400,\"message\":")
                    .contains(refusal.getValue().replace("\"", "\\\""));
        }
    }
}
