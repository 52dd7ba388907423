package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed requests (issue 27, defect 4): a 5xx caused by a request is a defect. Every route is sent every method
 * with bodies from the malformed corpus ({@code testdata/malformed}) and seeded mutations of valid bodies, and
 * headers right, wrong or missing. No answer may be a 5xx; every refusal is a JSON error that names its rule and
 * leaves the store as it was (containers, item counts and change log ends compared before and after). Bounded: a
 * fixed seed and number of requests, each answered within seconds.
 */
class HttpFuzzTest {
    private static final long SEED = 27;
    private static final int MUTATIONS_PER_BODY = 150;
    private static final int ROUTES_PER_BODY = 3;
    private static final long MAX_ANSWER_MS = 5_000;
    private static final String HEADER = "x-ms-documentdb-partitionkey";

    private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
            "TRACE", "FOO");
    private static final List<String> ROUTES = List.of("/", "/containers", "/containers/orders",
            "/containers/orders/items", "/containers/orders/items/o1", "/containers/orders/items/missing",
            "/containers/orders/batch", "/containers/orders/bulk", "/containers/orders/bulk/operations",
            "/containers/orders/scan/0", "/containers/orders/changelog/0", "/containers/nope/items",
            "/containers/orders/nope", "/containers/orders/items/o1/extra", "/containers/orders/scan/x",
            "/containers/orders/changelog/99", "/containers/%ZZ", "/containers/%FF%FE/items",
            "/containers/orders/bulk?upsert=maybe&stopAtFirstFailure=1",
            "/containers/orders/scan/0?maxItems=-1&continuation=%25%25",
            "/containers/orders/scan/0?continuation=AAAA",
            "/containers/orders/changelog/0?after=x&maxEvents=99999999999",
            "/containers/orders/changelog/0?after=-5&maxEvents=-1",
            "/containers/orders/snapshots", "/containers/orders/snapshots?leaseMs=-1",
            "/containers/orders/snapshots/AAAAAAAAAAAAAAAAAAAAAA", "/containers/nope/snapshots/x",
            "/containers/orders/snapshots/AAAAAAAAAAAAAAAAAAAAAA/partitions/0/items?from=%FF&continuation=",
            "/containers/orders/snapshots/x/partitions/99999/intervals?maxIntervals=99999999999",
            // The Cosmos DB routes
            "/dbs", "/dbs/shop", "/dbs/shop/colls", "/dbs/shop/colls/orders", "/dbs/shop/colls/orders/pkranges",
            "/dbs/shop/colls/orders/docs", "/dbs/shop/colls/orders/docs/o1", "/dbs/shop/colls/orders/docs/missing",
            "/dbs/nope/colls/orders/docs/o1", "/dbs/shop/colls/nope/docs", "/dbs/shop/users", "/dbs/a.b/colls",
            "/dbs/%FF/colls", "/dbs/AAAAAA==/colls/AAAAAIAAAAA=", "/dbs/shop/colls/orders/docs/o1/attachments");
    private static final List<String> PARTITION_KEY_HEADERS = List.of("[\"c1\"]", "[{}]", "[null]", "x", "[]",
            "[1,2]", "[{\"a\":1}]", "[[1]]", "[1e2147483648]", "[\"\\ud800\"]", "[\"c1\"] trailing", "",
            "[" + "1".repeat(3000) + "]");

    /** A message naming a Java class or exception tells of a bug, not of a rule. */
    private static final Pattern INTERNALS = Pattern.compile(
            "Exception|java\\.|com\\.fasterxml|io\\.docmirror|Cannot invoke");

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;
    private final Random random = new Random(SEED);
    private final List<String> violations = new ArrayList<>();
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private int requests;

    @BeforeEach
    void setUp() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false),
                TestingClock.atEpochSecond(1_767_225_600), false);
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        fixture();
    }

    @AfterEach
    void tearDown() {
        server.close();
        embedded.close();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void noMalformedRequestGetsA5xxOrChangesTheStore() throws Exception {
        // Every route with every method, once each with a random body of the corpus.
        List<byte[]> corpus = corpus();
        for (String route : ROUTES) {
            for (String method : METHODS) {
                exchange(method, route, corpus.get(random.nextInt(corpus.size())));
            }
        }
        // Every body of the corpus to its own route and to a few random ones.
        for (byte[] body : corpus) {
            for (int index = 0; index < ROUTES_PER_BODY; index++) {
                exchange(METHODS.get(random.nextInt(METHODS.size())), ROUTES.get(random.nextInt(ROUTES.size())), body);
            }
        }
        for (Map.Entry<String, byte[]> valid : validBodies().entrySet()) {
            String[] request = valid.getKey().split(" ");
            for (byte[] mutation : new RequestMutations(SEED + request[1].hashCode()).of(valid.getValue(),
                    MUTATIONS_PER_BODY)) {
                exchange(request[0], request[1], mutation, batchHeaders(request[1]));
            }
        }

        // The change feed over the Cosmos DB routes: its headers right, wrong or missing, in every combination.
        for (String mode : List.of("Incremental Feed", "Full-Fidelity Feed", "incremental feed", "Bogus")) {
            for (String position : List.of("", "*", "\"0\"", "\"3\"", "\"-1\"", "x", "\"99999999999999999999\"")) {
                for (String range : List.of("", "0", "rid,3", "4", "-1", "a,b,c", "99999")) {
                    Map<String, String> headers = new TreeMap<>(Map.of("A-IM", mode));
                    if (!position.isEmpty()) {
                        headers.put("If-None-Match", position);
                    }
                    if (!range.isEmpty()) {
                        headers.put("x-ms-documentdb-partitionkeyrangeid", range);
                    }
                    headers.put("x-ms-max-item-count", List.of("1", "-1", "0", "x").get(random.nextInt(4)));
                    exchange("GET", "/dbs/shop/colls/orders/docs", new byte[0], headers);
                }
            }
        }

        System.out.println("Fuzzed " + requests + " requests; answers by status: " + statuses);
        assertThat(violations).as("violations in %d requests (answers by status: %s)", requests, statuses).isEmpty();
        assertThat(requests).isGreaterThan(1000);
    }

    /**
     * Queries over the Cosmos DB routes: bodies that are not a query request, parameters of the wrong shape, queries
     * nested or long enough to exhaust a recursive parser, numbers no arithmetic holds, bad continuations and page
     * sizes; each as a query and as a query-plan request, within a partition key, a range or the whole container.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void noQueryGetsA5xxOrChangesTheStore() throws Exception {
        List<String> queries = List.of("SELECT * FROM c", "SELECT", "SELECT * FROM c WHERE",
                "SELECT * FROM c WHERE " + "(".repeat(20_000) + "true" + ")".repeat(20_000),
                "SELECT VALUE " + "NOT ".repeat(50_000) + "true FROM c",
                "SELECT VALUE " + "-".repeat(50_000) + "1 FROM c",
                "SELECT VALUE " + "[".repeat(20_000) + "]".repeat(20_000) + " FROM c",
                "SELECT VALUE " + "c.total + ".repeat(30_000) + "1 FROM c",
                "SELECT VALUE " + "{\"a\": ".repeat(5_000) + "1" + "}".repeat(5_000) + " FROM c",
                "SELECT * FROM c WHERE c.id IN (" + "'x', ".repeat(20_000) + "'o1')",
                "SELECT c.id FROM c " + "JOIN t IN c.tags ".repeat(50),
                "SELECT VALUE COUNT(1) FROM c " + "JOIN t IN c.tags ".repeat(50),
                "SELECT VALUE 1e999999999 + 1 FROM c", "SELECT VALUE 1e-2147483648 * 2 FROM c",
                "SELECT VALUE c.total / 0 FROM c", "SELECT TOP 99999999999 * FROM c", "SELECT * FROM c OFFSET -1 LIMIT 1",
                "SELECT TOP @n * FROM c", "SELECT * FROM c WHERE c.total > @missing",
                "SELECT c.customerId, COUNT(1) AS n FROM c GROUP BY c.customerId",
                "SELECT VALUE COUNT(1) FROM c GROUP BY c.customerId", "SELECT * FROM c ORDER BY c.total, c.id DESC",
                "SELECT DISTINCT VALUE c.total FROM c ORDER BY c.total", "SELECT udf.f(c) FROM c",
                "SELECT * FROM c WHERE c.id LIKE '" + "%_".repeat(10_000) + "'", "\u0000\uffff", "");
        List<String> parameters = List.of("", ",\"parameters\":[]", ",\"parameters\":null", ",\"parameters\":{}",
                ",\"parameters\":[1]", ",\"parameters\":[{\"name\":\"n\",\"value\":1}]",
                ",\"parameters\":[{\"name\":\"@n\"}]", ",\"parameters\":[{\"name\":\"@n\",\"value\":\"x\"}]",
                ",\"parameters\":[{\"name\":\"@n\",\"value\":2},{\"name\":\"@n\",\"value\":3}]",
                ",\"parameters\":[{\"name\":5,\"value\":1}]", ",\"parameters\":[{\"name\":\"@n\",\"value\":1e400}]");
        List<String> continuations = List.of("", "x", "{}", "{\"documents\":-1,\"rows\":0,\"given\":0}",
                "{\"documents\":99999999999999999999,\"rows\":0,\"given\":0}", "{\"documents\":1,\"rows\":1,\"given\":1}");
        List<byte[]> bodies = new ArrayList<>();
        for (String query : queries) {
            String text = StoreJson.mapper().writeValueAsString(query);
            bodies.add(("{\"query\":" + text + "}").getBytes(StandardCharsets.UTF_8));
            bodies.add(("{\"query\":" + text + parameters.get(random.nextInt(parameters.size())) + "}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        for (String parameter : parameters) {
            bodies.add(("{\"query\":\"SELECT TOP @n * FROM c\"" + parameter + "}").getBytes(StandardCharsets.UTF_8));
        }
        for (String body : List.of("", "{", "[]", "\"SELECT * FROM c\"", "{}", "{\"query\":5}", "{\"query\":null}",
                "{\"query\":\"SELECT * FROM c\",\"query\":\"SELECT 1\"}", "{\"query\":[\"SELECT\"]}")) {
            bodies.add(body.getBytes(StandardCharsets.UTF_8));
        }
        for (byte[] body : bodies) {
            // A query over the container, over a range, a query plan, then with headers at random.
            for (int index = 0; index < 4; index++) {
                Map<String, String> headers = new TreeMap<>();
                headers.put(index == 2 ? "x-ms-cosmos-is-query-plan-request" : "x-ms-documentdb-isquery", "True");
                headers.put("Content-Type", "application/query+json");
                headers.put("x-ms-max-item-count", "2");
                if (index == 1) {
                    headers.put("x-ms-documentdb-partitionkeyrangeid", "rid,0");
                }
                if (index == 3) {
                    headers.put("x-ms-max-item-count", List.of("1", "-1", "0", "x").get(random.nextInt(4)));
                    headers.put("x-ms-continuation", continuations.get(random.nextInt(continuations.size())));
                    headers.put("x-ms-documentdb-partitionkeyrangeid", List.of("0", "rid,3", "9", "x").get(
                            random.nextInt(4)));
                }
                exchange("POST", "/dbs/shop/colls/orders/docs", body, headers);
            }
        }
        System.out.println("Fuzzed " + requests + " queries; answers by status: " + statuses);
        assertThat(violations).as("violations in %d requests (answers by status: %s)", requests, statuses).isEmpty();
        assertThat(statuses).containsKeys(200, 400);
    }

    /** The shapes that used to end in a NullPointerException (500). */
    @Test
    void malformedBatchAndBulkRequestsAre400() throws Exception {
        Map<String, String> cases = new TreeMap<>(Map.of(
                "POST /containers/orders/batch {}", "Cannot run batch: 'operations' must be an array, not missing",
                "POST /containers/orders/batch {\"operations\":[null]}",
                "Cannot run batch: operation 1: it must be a JSON object such as {\"type\":\"read\",\"id\":\"o1\"}, "
                        + "not null",
                "POST /containers/orders/batch {\"operations\":[{\"type\":\"create\"}]}",
                "Cannot run batch: operation 1 (create): 'document' must be a string, not missing",
                "POST /containers/orders/batch {\"operations\":[{\"type\":\"replace\",\"document\":\"{}\"}]}",
                "Cannot run batch: operation 1 (replace): 'id' must be a string, not missing",
                "POST /containers/orders/batch {\"operations\":[{\"type\":\"patch\",\"id\":\"o1\",\"patch\":[null]}]}",
                "Cannot run batch: operation 1 (patch): patch operation 1: it must be a JSON object",
                "POST /containers/orders/bulk/operations {\"operations\":[{\"partitionKey\":\"c1\"}]}",
                "Bulk operation 1: 'type' must be a string, not missing",
                "POST /containers/orders/bulk/operations {\"operations\":[{\"partitionKey\":\"c1\",\"type\":\"upsert\"}]}",
                "Bulk operation 1 (upsert): 'document' must be a string, not missing",
                "POST /containers/orders/bulk/operations {\"operations\":[{\"partitionKey\":[1],\"type\":\"read\",\"id\":\"o1\"}]}",
                "Bulk operation 1: 'partitionKey' must be a string, number, boolean or null, or {} for none",
                "PATCH /containers/orders/items/o1 {\"operations\":[{\"op\":\"set\"}]}",
                "Cannot patch item: patch operation 1: 'path' must be a string, not missing",
                "PATCH /containers/orders/items/o1 {}", "Cannot patch item: 'operations' must be an array, not missing"));
        Snapshot before = snapshot();
        for (Map.Entry<String, String> entry : cases.entrySet()) {
            String[] request = entry.getKey().split(" ", 3);
            RawHttp.Response response = RawHttp.request(request[0], request[1]).header(HEADER, "[\"c1\"]")
                    .body(request[2]).send(server.port());

            assertThat(response.status()).as("%s: %s", entry.getKey(), response).isEqualTo(400);
            assertThat(StoreJson.mapper().readTree(response.body()).get("message").textValue()).as(entry.getKey())
                    .startsWith(entry.getValue());
        }
        assertThat(snapshot()).isEqualTo(before);
    }

    /** The headers that make a Cosmos DB POST of items a transactional batch ({@code ?batch}) or bulk ({@code ?bulk}). */
    private static Map<String, String> batchHeaders(String route) {
        if (route.endsWith("?batch")) {
            return Map.of("x-ms-cosmos-is-batch-request", "True", HEADER, "[\"c1\"]");
        }
        if (route.endsWith("?bulk")) {
            return Map.of("x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "False",
                    "x-ms-documentdb-partitionkeyrangeid", "0");
        }
        return Map.of();
    }

    private void exchange(String method, String route, byte[] body) throws IOException {
        exchange(method, route, body, Map.of());
    }

    private void exchange(String method, String route, byte[] body, Map<String, String> extraHeaders)
            throws IOException {
        RawHttp request = RawHttp.request(method, route).body(body);
        extraHeaders.forEach(request::header);
        int headers = random.nextInt(4);
        if (headers > 0) {
            request.header(HEADER, headers == 1 ? "[\"c1\"]"
                    : PARTITION_KEY_HEADERS.get(random.nextInt(PARTITION_KEY_HEADERS.size())));
        }
        if (random.nextInt(4) == 0) {
            request.header("If-Match", random.nextBoolean() ? "\"stale\"" : "");
        }
        if (random.nextInt(4) == 0) {
            request.header("x-ms-documentdb-is-upsert", List.of("true", "false", "yes", "").get(random.nextInt(4)));
        }
        if (route.startsWith("/dbs") && random.nextInt(3) == 0) {
            request.header(List.of("x-ms-cosmos-is-batch-request", "x-ms-documentdb-isquery", "A-IM",
                    "If-None-Match", "x-ms-documentdb-partitionkeyrangeid", "x-ms-max-item-count", "x-ms-start-epk",
                    "If-Modified-Since", "x-ms-cosmos-batch-atomic", "x-ms-cosmos-batch-continue-on-error")
                    .get(random.nextInt(10)), List.of("True", "False", "maybe", "\"1\"", "*",
                    "Incremental Feed", "Full-Fidelity Feed", "rid,0", "-1", "99999999999",
                    "Tue, 24 Nov 2026 08:00:00 GMT", "").get(random.nextInt(12)));
        }
        Snapshot before = snapshot();
        long start = System.nanoTime();
        RawHttp.Response response;
        try {
            response = request.send(server.port());
        }
        catch (IOException | IllegalStateException e) {
            violations.add("no HTTP answer (" + e.getMessage() + "): " + method + " " + route + " with body "
                    + abbreviate(body));
            return;
        }
        finally {
            requests++;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        statuses.merge(response.status(), 1, Integer::sum);

        String what = method + " " + route + " with body " + abbreviate(body) + " -> " + abbreviate(response.body());
        if (response.status() >= 500) {
            violations.add(response.status() + ": " + what);
        }
        if (millis > MAX_ANSWER_MS) {
            violations.add("answered after " + millis + " ms: " + what);
        }
        if (response.status() >= 400) {
            checkErrorBody(method, route, response, what);
            Snapshot after = snapshot();
            if (!after.equals(before)) {
                violations.add("refused with " + response.status() + " but changed the store from " + before
                        + " to " + after + ": " + what);
            }
        }
        else if (!snapshot().equals(before)) {
            fixture(); // the mutation happened to be a valid write: put the store back for the next one
        }
    }

    private void checkErrorBody(String method, String route, RawHttp.Response response, String what) {
        boolean cosmos = route.equals("/") || route.startsWith("/dbs");
        if (method.equals("HEAD")) {
            return;
        }
        JsonNode error;
        try {
            error = StoreJson.mapper().readTree(response.body());
        }
        catch (IOException e) {
            violations.add("error body is not JSON: " + what);
            return;
        }
        if (error != null && error.has("results")) {
            // A transactional batch that failed: its failing operation carries the status and the message.
            error = StreamSupport.stream(error.get("results").spliterator(), false)
                    .filter(result -> result.path("status").asInt() == response.status())
                    .findFirst().orElse(null);
            if (error == null || !error.path("message").isTextual()) {
                violations.add("batch results without an operation of the answer's status: " + what);
                return;
            }
        }
        else if (cosmos) {
            if (error == null || !error.path("code").isTextual() || !error.path("message").isTextual()) {
                violations.add("error body is not Cosmos DB's {\"code\",\"message\"}: " + what);
                return;
            }
        }
        else if (error == null || !error.path("code").isTextual() || error.path("status").asInt() != response.status()
                || !error.path("message").isTextual()) {
            violations.add("error body is not {\"code\",\"status\",\"message\"}: " + what);
            return;
        }
        String message = error.get("message").textValue();
        if (message.isBlank() || INTERNALS.matcher(message).find()) {
            violations.add("error message names no rule: " + what);
        }
    }

    /** The malformed samples, as bodies of their own and as the value in an otherwise valid document. */
    private static List<byte[]> corpus() throws IOException {
        List<byte[]> corpus = new ArrayList<>();
        Path index = TestData.file("malformed/INDEX.tsv");
        List<String> lines = Files.readAllLines(index, StandardCharsets.UTF_8);
        for (String line : lines.subList(1, lines.size())) {
            byte[] sample = Files.readAllBytes(index.resolveSibling(line.substring(0, line.indexOf('\t'))));
            corpus.add(sample);
            ByteArrayOutputStream wrapped = new ByteArrayOutputStream();
            wrapped.writeBytes("{\"id\":\"m\",\"customerId\":\"c1\",\"v\":".getBytes(StandardCharsets.UTF_8));
            wrapped.writeBytes(sample);
            wrapped.writeBytes("}".getBytes(StandardCharsets.UTF_8));
            corpus.add(wrapped.toByteArray());
        }
        corpus.addAll(validBodies().values());
        corpus.add(new byte[0]);
        return corpus;
    }

    /** A valid body for each route that takes one, by "METHOD path". */
    private static Map<String, byte[]> validBodies() {
        Map<String, String> bodies = new TreeMap<>();
        bodies.put("POST /containers",
                "{\"id\":\"fuzzed\",\"partitionKeyPath\":\"/k\",\"defaultTtl\":3600,\"analyticalTtl\":-1,\"logPartitions\":2}");
        bodies.put("PUT /containers/orders", "{\"id\":\"orders\",\"partitionKeyPath\":\"/customerId\",\"defaultTtl\":60,"
                + "\"analyticalTtl\":-1,\"logPartitions\":4,\"_rid\":\"AAAAAQ\",\"_etag\":\"\\\"AAAAAQ:0\\\"\"}");
        bodies.put("POST /containers/orders/items",
                "{\"id\":\"n1\",\"customerId\":\"c1\",\"total\":12.50,\"lines\":[{\"sku\":\"a\",\"qty\":1}],\"ttl\":-1}");
        bodies.put("PUT /containers/orders/items/o1", "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}");
        bodies.put("PATCH /containers/orders/items/o1", "{\"operations\":[{\"op\":\"set\",\"path\":\"/status\","
                + "\"value\":\"paid\"},{\"op\":\"incr\",\"path\":\"/total\",\"value\":1},{\"op\":\"add\",\"path\":"
                + "\"/tags\",\"value\":[]},{\"op\":\"move\",\"from\":\"/status\",\"path\":\"/state\"},{\"op\":"
                + "\"remove\",\"path\":\"/state\"},{\"op\":\"replace\",\"path\":\"/total\",\"value\":3}]}");
        bodies.put("POST /containers/orders/batch", "{\"operations\":["
                + "{\"type\":\"create\",\"document\":\"{\\\"id\\\":\\\"b1\\\",\\\"customerId\\\":\\\"c1\\\"}\"},"
                + "{\"type\":\"upsert\",\"document\":\"{\\\"id\\\":\\\"o1\\\",\\\"customerId\\\":\\\"c1\\\"}\"},"
                + "{\"type\":\"replace\",\"id\":\"o1\",\"document\":\"{\\\"id\\\":\\\"o1\\\",\\\"customerId\\\":\\\"c1\\\",\\\"v\\\":2}\"},"
                + "{\"type\":\"patch\",\"id\":\"o1\",\"patch\":[{\"op\":\"incr\",\"path\":\"/v\",\"value\":3}]},"
                + "{\"type\":\"read\",\"id\":\"o1\"},{\"type\":\"delete\",\"id\":\"b1\"}]}");
        bodies.put("POST /containers/orders/bulk/operations", "{\"operations\":["
                + "{\"partitionKey\":\"c3\",\"type\":\"create\",\"document\":\"{\\\"id\\\":\\\"k1\\\",\\\"customerId\\\":\\\"c3\\\"}\"},"
                + "{\"partitionKey\":{},\"type\":\"read\",\"id\":\"o1\"},"
                + "{\"partitionKey\":\"c1\",\"type\":\"patch\",\"id\":\"o1\",\"patch\":[{\"op\":\"set\",\"path\":\"/a\",\"value\":1}],\"ifMatch\":\"\\\"x\\\"\"},"
                + "{\"partitionKey\":null,\"type\":\"delete\",\"id\":\"zz\"}]}");
        bodies.put("POST /dbs", "{\"id\":\"fuzzdb\"}");
        bodies.put("POST /dbs/shop/colls", "{\"id\":\"c2\",\"partitionKey\":{\"paths\":[\"/k\"],\"kind\":\"Hash\","
                + "\"version\":2},\"defaultTtl\":3600,\"analyticalStorageTtl\":-1,\"indexingPolicy\":{}}");
        bodies.put("PUT /dbs/shop/colls/orders", "{\"id\":\"orders\",\"partitionKey\":{\"paths\":[\"/customerId\"],"
                + "\"kind\":\"Hash\",\"version\":2},\"defaultTtl\":-1,\"analyticalStorageTtl\":3600,"
                + "\"indexingPolicy\":{\"indexingMode\":\"consistent\"},\"_etag\":\"\\\"x\\\"\"}");
        bodies.put("POST /dbs/shop/colls/orders/docs", "{\"id\":\"n1\",\"customerId\":\"c1\",\"total\":12.50}");
        bodies.put("PUT /dbs/shop/colls/orders/docs/o1", "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}");
        bodies.put("PATCH /dbs/shop/colls/orders/docs/o1", "{\"operations\":[{\"op\":\"set\",\"path\":\"/status\","
                + "\"value\":\"paid\"},{\"op\":\"remove\",\"path\":\"/total\",\"value\":null}],\"condition\":null}");
        bodies.put("POST /dbs/shop/colls/orders/docs?batch", "[{\"operationType\":\"Create\",\"resourceBody\":"
                + "{\"id\":\"b1\",\"customerId\":\"c1\"}},{\"operationType\":\"Patch\",\"id\":\"o1\","
                + "\"resourceBody\":{\"operations\":[{\"op\":\"incr\",\"path\":\"/total\",\"value\":1}]}},"
                + "{\"operationType\":\"Read\",\"id\":\"o1\",\"ifMatch\":\"\\\"x\\\"\"},"
                + "{\"operationType\":\"Delete\",\"id\":\"b1\"}]");
        bodies.put("POST /dbs/shop/colls/orders/docs?bulk", "[{\"operationType\":\"Create\",\"partitionKey\":"
                + "\"[\\\"c1\\\"]\",\"resourceBody\":{\"id\":\"k1\",\"customerId\":\"c1\"}},"
                + "{\"operationType\":\"Delete\",\"partitionKey\":\"[{}]\",\"id\":\"zz\"}]");
        bodies.put("POST /containers/orders/bulk", "{\"id\":\"l1\",\"customerId\":\"c1\"}\n{\"id\":\"l2\",\"customerId\":"
                + "\"c2\"}\r\n{\"id\":\"l3\"}\n");
        Map<String, byte[]> bytes = new TreeMap<>();
        bodies.forEach((route, body) -> bytes.put(route, body.getBytes(StandardCharsets.UTF_8)));
        return bytes;
    }

    /** The store the fuzzing starts from, made again after a request that changed it. */
    private void fixture() {
        for (ContainerProperties container : embedded.listContainers()) {
            embedded.deleteContainer(container.id());
        }
        embedded.createContainer(ContainerProperties.of("orders", "/customerId"));
        embedded.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":1,\"tags\":[\"a\"]}");
        embedded.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\"}");
        embedded.createItem("orders", "{\"id\":\"o3\"}");
        // The Cosmos DB routes' database "shop" with its container "orders", as those routes keep them.
        embedded.createContainer(ContainerProperties.of("cosmos-databases", "/id").withLogPartitions(1));
        embedded.createItem("cosmos-databases", "{\"id\":\"shop\"}");
        embedded.createContainer(ContainerProperties.of("shop.orders", "/customerId")
                .withPartitionHashing(ContainerProperties.PartitionHashing.COSMOS_HASH_V2));
        embedded.createItem("shop.orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":1,\"tags\":[\"a\",\"b\"]}");
    }

    /** What a refused request must not change: each container, its item count and its change log ends. */
    private record Snapshot(Map<String, String> containers) {
    }

    private Snapshot snapshot() {
        Map<String, String> containers = new TreeMap<>();
        for (ContainerProperties container : embedded.listContainers()) {
            StringBuilder state = new StringBuilder(container.toString());
            for (int range = 0; range < container.logPartitions(); range++) {
                int items = 0;
                Optional<String> continuation = Optional.empty();
                do {
                    ItemPage page = embedded.scanItems(container.id(), range, continuation, 1000);
                    items += page.items().size();
                    continuation = page.continuation();
                } while (continuation.isPresent());
                state.append(" range ").append(range).append(": ").append(items).append(" items, log end ")
                        .append(embedded.readChangeLog(container.id(), range, Long.MAX_VALUE, 1).logEndLsn());
            }
            containers.put(container.id(), state.toString());
        }
        return new Snapshot(containers);
    }

    private static String abbreviate(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8).replace("\r", "\\r").replace("\n", "\\n");
        return text.length() > 300 ? text.substring(0, 300) + "... (" + bytes.length + " bytes)" : text;
    }
}
