package io.docmirror.store;

import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cosmos DB's master-key signature, spoken byte for byte: a request signed as the SDKs sign it passes; a date more
 * than 15 minutes off is 403, a missing or malformed header 401 (never a 5xx), a signature over anything else 401,
 * and the emulator's published key only when the store accepts it.
 */
class CosmosSignatureTest {
    private static final String KEY = "VGhpcyBpcyBhIHRlc3Qga2V5IGZvciBkb2NtaXJyb3IncyBzaWduYXR1cmUgdGVzdHMhISE=";
    private static final String READ_ONLY_KEY =
            "UmVhZC1vbmx5IGtleSBmb3IgZG9jbWlycm9yJ3Mgc2lnbmF0dXJlIHRlc3RzISEhISEhISE=";
    private static final String EMULATOR_KEY =
            "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

    @TempDir
    Path directory;

    private EmbeddedStore store;
    private StoreHttpServer server;

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStore.open(directory, StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0)
                .withKeys(KEY, READ_ONLY_KEY));
    }

    @AfterEach
    void stop() {
        server.close();
        store.close();
    }

    @Test
    void aRequestSignedAsTheSdksSignItPasses() throws Exception {
        RawHttp.Response created = signedNow(KEY, "POST", "/dbs", "dbs", "").body("{\"id\":\"shop\"}")
                .send(server.port());
        assertThat(created.status()).as(created.bodyText()).isEqualTo(201);
        assertThat(created.header("x-ms-activity-id")).isPresent();
        assertThat(created.header("x-ms-request-charge")).isPresent();

        RawHttp.Response read = signedNow(READ_ONLY_KEY, "GET", "/dbs/shop", "dbs", "dbs/shop").send(server.port());
        assertThat(read.status()).as(read.bodyText()).isEqualTo(200);
        assertThat(read.bodyText()).contains("\"id\":\"shop\"");
    }

    /** A read feed, as the .NET and other SDKs read all items without a query: page by page, each item once. */
    @Test
    void aReadFeedGivesEveryItemPageByPage() throws Exception {
        assertThat(signedNow(KEY, "POST", "/dbs", "dbs", "").body("{\"id\":\"shop\"}").send(server.port()).status())
                .isEqualTo(201);
        assertThat(signedNow(KEY, "POST", "/dbs/shop/colls", "colls", "dbs/shop")
                .body("{\"id\":\"orders\",\"partitionKey\":{\"paths\":[\"/customerId\"],\"kind\":\"Hash\"}}")
                .send(server.port()).status()).isEqualTo(201);
        for (int index = 1; index <= 5; index++) {
            store.createItem("shop.orders", ("{\"id\":\"o" + index + "\",\"customerId\":\"c" + index
                    + "\",\"big\":9007199254740993}").getBytes(StandardCharsets.UTF_8));
        }
        List<String> ids = new ArrayList<>();
        String continuation = null;
        do {
            RawHttp request = signedNow(READ_ONLY_KEY, "GET", "/dbs/shop/colls/orders/docs", "docs",
                    "dbs/shop/colls/orders").header("x-ms-max-item-count", "2");
            if (continuation != null) {
                request.header("x-ms-continuation", continuation);
            }
            RawHttp.Response page = request.send(server.port());
            assertThat(page.status()).as(page.bodyText()).isEqualTo(200);
            assertThat(page.bodyText()).contains("\"big\":9007199254740993");
            StoreJson.mapper().readTree(page.body()).get("Documents")
                    .forEach(document -> ids.add(document.get("id").asText()));
            continuation = page.header("x-ms-continuation").orElse(null);
            assertThat(ids).hasSizeLessThanOrEqualTo(5);
        } while (continuation != null);
        assertThat(ids).containsExactlyInAnyOrder("o1", "o2", "o3", "o4", "o5");
    }

    @Test
    void databasesLastThroughARestartOfTheStore() throws Exception {
        RawHttp.Response created = signedNow(KEY, "POST", "/dbs", "dbs", "").body("{\"id\":\"shop\"}")
                .send(server.port());
        String resourceId = StoreJson.mapper().readTree(created.body()).get("_rid").asText();

        server.close();
        store.close();
        store = EmbeddedStore.open(directory, StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0)
                .withKeys(KEY, READ_ONLY_KEY));

        RawHttp.Response read = signedNow(KEY, "GET", "/dbs/shop", "dbs", "dbs/shop").send(server.port());
        assertThat(read.status()).as(read.bodyText()).isEqualTo(200);
        assertThat(StoreJson.mapper().readTree(read.body()).get("_rid").asText()).isEqualTo(resourceId);
    }

    @Test
    void aDateMoreThanFifteenMinutesOffIsForbidden() throws Exception {
        for (ZonedDateTime skewed : new ZonedDateTime[] {ZonedDateTime.now(ZoneOffset.UTC).minusMinutes(16),
                ZonedDateTime.now(ZoneOffset.UTC).plusMinutes(16)}) {
            String date = httpDate(skewed);
            RawHttp.Response response = RawHttp.request("GET", "/dbs")
                    .header("x-ms-date", date)
                    .header("Authorization", authorization(KEY, "GET", "dbs", "", date))
                    .send(server.port());
            assertThat(response.status()).isEqualTo(403);
            assertThat(response.bodyText()).contains("\"code\":\"Forbidden\"")
                    .contains("is not an RFC 1123 date within 15 minutes of the server's time");
        }
    }

    @Test
    void malformedOrMissingAuthorizationIsUnauthorizedNeverAServerError() throws Exception {
        String date = httpDate(ZonedDateTime.now(ZoneOffset.UTC));
        String[] malformed = {"", "type=master", "type%3Dmaster%26ver%3D1.0%26sig%3D%ZZ", "%", "Bearer " + KEY,
                "type=master&ver=1.0&sig=not*base64", "type=resource&ver=1.0&sig=AAAA", "type=master&ver=2.0&sig=AAAA",
                "type=master&ver=1.0&sig=" + "A".repeat(10_000)};
        for (String header : malformed) {
            RawHttp.Response response = RawHttp.request("GET", "/dbs")
                    .header("x-ms-date", date)
                    .header("Authorization", header)
                    .send(server.port());
            assertThat(response.status()).as("Authorization: %s", header).isEqualTo(401);
            assertThat(response.bodyText()).contains("\"code\":\"Unauthorized\"");
        }
        RawHttp.Response noDate = RawHttp.request("GET", "/dbs")
                .header("Authorization", authorization(KEY, "GET", "dbs", "", "x"))
                .send(server.port());
        assertThat(noDate.status()).isEqualTo(401);
        assertThat(noDate.bodyText()).contains("mandates the x-ms-date header");
        RawHttp.Response badDate = RawHttp.request("GET", "/dbs")
                .header("x-ms-date", "yesterday")
                .header("Authorization", authorization(KEY, "GET", "dbs", "", "yesterday"))
                .send(server.port());
        assertThat(badDate.status()).isEqualTo(403);
    }

    @Test
    void aSignatureOverAnotherRequestOrKeyIsUnauthorized() throws Exception {
        String date = httpDate(ZonedDateTime.now(ZoneOffset.UTC));
        String[][] wrong = {
                {KEY, "GET", "dbs", "", date},          // signed as a GET, sent as a POST
                {KEY, "POST", "colls", "", date},       // another resource type
                {KEY, "POST", "dbs", "dbs/other", date}, // another link
                {EMULATOR_KEY, "POST", "dbs", "", date}, // the emulator's key, not accepted here
        };
        for (String[] signed : wrong) {
            RawHttp.Response response = RawHttp.request("POST", "/dbs")
                    .header("x-ms-date", date)
                    .header("Authorization", authorization(signed[0], signed[1], signed[2], signed[3], signed[4]))
                    .body("{\"id\":\"shop\"}")
                    .send(server.port());
            assertThat(response.status()).as("signed %s %s %s", signed[1], signed[2], signed[3]).isEqualTo(401);
            assertThat(response.bodyText()).contains("can't serve the request");
        }
        assertThat(store.listContainers()).isEmpty();

        RawHttp.Response readOnlyWriting = RawHttp.request("POST", "/dbs")
                .header("x-ms-date", date)
                .header("Authorization", authorization(READ_ONLY_KEY, "POST", "dbs", "", date))
                .body("{\"id\":\"shop\"}")
                .send(server.port());
        assertThat(readOnlyWriting.status()).isEqualTo(403);
        assertThat(readOnlyWriting.bodyText()).contains("read-only key cannot POST");
    }

    /**
     * A signature over a link's last segment alone (the form the SDKs use for a resource they address by its id) holds
     * only for a path that names every resource by its id (issue 41, defect 9): it used to hold for that name in
     * every database and container.
     */
    @Test
    void aSignatureOverTheLastSegmentAloneHoldsOnlyForAPathOfResourceIds() throws Exception {
        createShopOrders();
        store.createItem("shop.orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}".getBytes(StandardCharsets.UTF_8));
        RawHttp.Response byName = signedNow(KEY, "GET", "/dbs/shop/colls/orders/docs/o1", "docs", "o1")
                .header("x-ms-documentdb-partitionkey", "[\"c1\"]").send(server.port());
        assertThat(byName.status()).as(byName.bodyText()).isEqualTo(401);

        RawHttp.Response container = signedNow(KEY, "GET", "/dbs/shop/colls/orders", "colls", "dbs/shop/colls/orders")
                .send(server.port());
        String containerId = StoreJson.mapper().readTree(container.body()).get("_rid").asText();
        String databaseId = StoreJson.mapper().readTree(signedNow(KEY, "GET", "/dbs/shop", "dbs", "dbs/shop")
                .send(server.port()).body()).get("_rid").asText();
        RawHttp.Response ranges = signedNow(KEY, "GET", "/dbs/" + databaseId + "/colls/" + containerId + "/pkranges",
                "pkranges", containerId.toLowerCase(Locale.ROOT)).send(server.port());
        assertThat(ranges.status()).as("the ranges through the container's _self link: %s", ranges.bodyText())
                .isEqualTo(200);
    }

    /** Queries only read: the read-only key may send them, as Cosmos DB's may (issue 41, defect 11); no other POST. */
    @Test
    void theReadOnlyKeyRunsQueriesButWritesNothing() throws Exception {
        createShopOrders();
        store.createItem("shop.orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}".getBytes(StandardCharsets.UTF_8));
        RawHttp.Response query = signedNow(READ_ONLY_KEY, "POST", "/dbs/shop/colls/orders/docs", "docs",
                "dbs/shop/colls/orders")
                .header("x-ms-documentdb-isquery", "True")
                .header("Content-Type", "application/query+json")
                .header("x-ms-documentdb-query-enablecrosspartition", "True")
                .body("{\"query\":\"SELECT c.id FROM c\",\"parameters\":[]}")
                .send(server.port());
        assertThat(query.status()).as(query.bodyText()).isEqualTo(200);
        assertThat(query.bodyText()).contains("\"id\":\"o1\"");

        RawHttp.Response create = signedNow(READ_ONLY_KEY, "POST", "/dbs/shop/colls/orders/docs", "docs",
                "dbs/shop/colls/orders")
                .header("x-ms-documentdb-partitionkey", "[\"c2\"]")
                .body("{\"id\":\"o2\",\"customerId\":\"c2\"}")
                .send(server.port());
        assertThat(create.status()).as(create.bodyText()).isEqualTo(403);
        RawHttp.Response createContainer = signedNow(READ_ONLY_KEY, "POST", "/dbs/shop/colls", "colls", "dbs/shop")
                .header("x-ms-documentdb-isquery", "True")
                .body("{\"id\":\"returns\",\"partitionKey\":{\"paths\":[\"/customerId\"],\"kind\":\"Hash\"}}")
                .send(server.port());
        assertThat(createContainer.status()).as(createContainer.bodyText()).isEqualTo(403);
        assertThat(store.listContainers()).extracting(ContainerProperties::id).doesNotContain("shop.returns");
    }

    private void createShopOrders() throws Exception {
        assertThat(signedNow(KEY, "POST", "/dbs", "dbs", "").body("{\"id\":\"shop\"}").send(server.port()).status())
                .isEqualTo(201);
        assertThat(signedNow(KEY, "POST", "/dbs/shop/colls", "colls", "dbs/shop")
                .body("{\"id\":\"orders\",\"partitionKey\":{\"paths\":[\"/customerId\"],\"kind\":\"Hash\"}}")
                .send(server.port()).status()).isEqualTo(201);
    }

    @Test
    void theEmulatorsKeyPassesWhenTheStoreAcceptsIt() throws Exception {
        server.close();
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0).withEmulatorKey(true));
        String date = httpDate(ZonedDateTime.now(ZoneOffset.UTC));
        RawHttp.Response emulator = RawHttp.request("GET", "/dbs")
                .header("x-ms-date", date)
                .header("Authorization", authorization(EMULATOR_KEY, "GET", "dbs", "", date))
                .send(server.port());
        assertThat(emulator.status()).as(emulator.bodyText()).isEqualTo(200);
        RawHttp.Response unsigned = RawHttp.request("GET", "/dbs").header("x-ms-date", date).send(server.port());
        assertThat(unsigned.status()).isEqualTo(401);
        // The store's own routes keep their rules: without keys configured they are open on 127.0.0.1.
        assertThat(RawHttp.request("GET", "/containers").send(server.port()).status()).isEqualTo(200);
    }

    /** A request signed now with {@code key}, as the SDKs sign it. */
    private static RawHttp signedNow(String key, String method, String path, String resourceType, String link)
            throws Exception {
        String date = httpDate(ZonedDateTime.now(ZoneOffset.UTC));
        return RawHttp.request(method, path)
                .header("x-ms-date", date)
                .header("Authorization", authorization(key, method, resourceType, link, date));
    }

    /** The Authorization header as the SDKs write it, from the specification of the signature. */
    private static String authorization(String key, String verb, String resourceType, String link, String date)
            throws Exception {
        String payload = verb.toLowerCase(Locale.ROOT) + "\n" + resourceType.toLowerCase(Locale.ROOT) + "\n" + link
                + "\n" + date.toLowerCase(Locale.ROOT) + "\n" + "" + "\n";
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(key), "HmacSHA256"));
        String signature = Base64.getEncoder().encodeToString(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
        return URLEncoder.encode("type=master&ver=1.0&sig=" + signature, StandardCharsets.UTF_8);
    }

    private static String httpDate(ZonedDateTime time) {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(time);
    }
}
