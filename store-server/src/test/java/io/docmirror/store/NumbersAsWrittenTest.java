package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.json.LiteralNumberNode;
import io.docmirror.store.bulk.IdAssignment;
import io.docmirror.store.bulk.JsonLinesImporter;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.internal.DocumentValidator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store keeps every number exactly as it was written, on every path that writes, reads or rewrites an item: in
 * process and over HTTP, through patches of other properties, and for numbers of any length an item can hold.
 */
class NumbersAsWrittenTest {
    private static final String ORDERS = "orders";
    private static final PartitionKey C1 = PartitionKey.of("c1");
    /** More digits than Jackson's default limit of 1,000. */
    private static final String LONG_INTEGER = "9".repeat(1500);
    /** Every spelling a parse-and-rewrite of the JSON would change, and some it would not. */
    private static final List<String> NUMBERS = List.of("-0.0", "-0", "-0.000", "-0e5", "1.0", "1", "1E+2", "1e2",
            "1.50", "0.0000001", "123456789012345678901234567890.123456789", "184467440737095516160000",
            "1e400", "123e-10000", "1e2147483647", "-1e2147483647", "1e-2147483648", "12.5E-3", LONG_INTEGER);

    @TempDir
    Path dataDir;

    private StoreBothWays store;
    private EmbeddedStore embedded;

    @BeforeEach
    void open() throws IOException {
        store = new StoreBothWays(dataDir);
        embedded = store.embedded;
        embedded.createContainer(ContainerProperties.of(ORDERS, "/customerId"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private StoreClient client(String kind) {
        return store.client(kind);
    }

    /** {@code {"id":"n","customerId":"c1","other":1,"n0":-0.0,...,"list":[...],"nested":{"n":-0.0}}} */
    private static String documentWithEveryNumber() {
        StringBuilder json = new StringBuilder("{\"id\":\"n\",\"customerId\":\"c1\",\"other\":1,\"text\":\"t\"");
        for (int index = 0; index < NUMBERS.size(); index++) {
            json.append(",\"n").append(index).append("\":").append(NUMBERS.get(index));
        }
        json.append(",\"list\":[").append(String.join(",", NUMBERS)).append("],\"nested\":{\"n\":-0.0}}");
        return json.toString();
    }

    private static void assertEveryNumberAsWritten(String json) {
        for (int index = 0; index < NUMBERS.size(); index++) {
            assertThat(json).as("n%d", index).contains("\"n" + index + "\":" + NUMBERS.get(index) + ",");
        }
        assertThat(json).contains("\"list\":[" + String.join(",", NUMBERS) + "]").contains("\"nested\":{\"n\":-0.0}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void aPatchOfAnotherPropertyLeavesANegativeZeroPrice(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"price\":-0.0,\"status\":\"new\"}");

        store.patchItem(ORDERS, C1, "o1", List.of(PatchOperation.set("/status", TextNode.valueOf("paid"))));

        assertThat(store.readItem(ORDERS, C1, "o1").json()).startsWith(
                "{\"id\":\"o1\",\"customerId\":\"c1\",\"price\":-0.0,\"status\":\"paid\",");
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void everyPatchOfOtherPropertiesLeavesEveryNumberAsWritten(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, documentWithEveryNumber());

        List<List<PatchOperation>> patches = List.of(
                List.of(PatchOperation.set("/other", IntNode.valueOf(2))),
                List.of(PatchOperation.add("/added", TextNode.valueOf("a"))),
                List.of(PatchOperation.replace("/text", TextNode.valueOf("u"))),
                List.of(PatchOperation.remove("/added")),
                List.of(PatchOperation.incr("/other", IntNode.valueOf(5))),
                List.of(PatchOperation.move("/text", "/moved")),
                List.of(PatchOperation.add("/list/-", TextNode.valueOf("x")), PatchOperation.remove("/list/19")));
        for (List<PatchOperation> patch : patches) {
            Item patched = store.patchItem(ORDERS, C1, "n", patch);

            assertEveryNumberAsWritten(patched.json());
            assertEveryNumberAsWritten(store.readItem(ORDERS, C1, "n").json());
        }
        assertThat(store.readItem(ORDERS, C1, "n").tree().get("other").intValue()).isEqualTo(7);
        for (ChangeEvent event : StoreTesting.changeLog(store, ORDERS)) {
            assertEveryNumberAsWritten(new String(event.documentJson().orElseThrow(), StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void replaceUpsertReadScanAndBatchKeepEveryNumberAsWritten(String kind) {
        StoreClient store = client(kind);
        store.upsertItem(ORDERS, documentWithEveryNumber());
        store.replaceItem(ORDERS, C1, "n", documentWithEveryNumber().getBytes(StandardCharsets.UTF_8),
                Precondition.NONE);
        store.executeBatch(ORDERS, C1, List.of(BatchOperation.patch("n",
                List.of(PatchOperation.set("/other", TextNode.valueOf("batch"))))));

        assertEveryNumberAsWritten(store.readItem(ORDERS, C1, "n").json());
        assertEveryNumberAsWritten(store.readPartition(ORDERS, C1).get(0).json());
        assertEveryNumberAsWritten(StoreTesting.allItems(store, ORDERS).get(0).json());
        assertEveryNumberAsWritten(store.readItem(ORDERS, C1, "n").tree().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void patchValuesKeepTheirSpelling(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\"}");

        Item patched = store.patchItem(ORDERS, C1, "n", List.of(
                PatchOperation.set("/literal", new LiteralNumberNode("-0.0")),
                PatchOperation.set("/double", DoubleNode.valueOf(-0.0)),
                PatchOperation.set("/exponent", new LiteralNumberNode("1e2")),
                PatchOperation.add("/long", new LiteralNumberNode(LONG_INTEGER))));

        assertThat(patched.json()).contains("\"literal\":-0.0,", "\"double\":-0.0,", "\"exponent\":1e2,",
                "\"long\":" + LONG_INTEGER + ",");
    }

    @Test
    void patchValuesSentAsJsonKeepTheirSpelling() throws Exception {
        embedded.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"keep\":-0.0}");

        HttpResponse<String> response = send("PATCH", "/containers/orders/items/n", """
                {"operations":[{"op":"set","path":"/a","value":-0.0},{"op":"add","path":"/b","value":1e2},
                {"op":"set","path":"/c","value":[-0,1.0,0.0000001]}]}""");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"keep\":-0.0,\"a\":-0.0,\"b\":1e2,\"c\":[-0,1.0,0.0000001],");
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void incrementOfANegativeZeroFollowsDoubleArithmeticAndTouchesNothingElse(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"a\":-0.0,\"b\":-0.0,\"c\":-0.0,\"d\":-0.0,"
                + "\"i\":-0,\"keep\":-0.0,\"e\":1E+2}");

        Item patched = store.patchItem(ORDERS, C1, "n", List.of(
                PatchOperation.incr("/a", IntNode.valueOf(0)),
                PatchOperation.incr("/b", new LiteralNumberNode("-0.0")),
                PatchOperation.incr("/c", DoubleNode.valueOf(-0.0)),
                PatchOperation.incr("/d", IntNode.valueOf(1)),
                PatchOperation.incr("/i", new LiteralNumberNode("-0"))));

        // -0.0 + 0 = 0.0, -0.0 + -0.0 = -0.0 and -0.0 + 1 = 1.0, as doubles add (PatchIncrementTest has the rest).
        assertThat(patched.json()).contains("\"a\":0.0,", "\"b\":-0.0,", "\"c\":-0.0,", "\"d\":1.0,", "\"i\":-0,",
                "\"keep\":-0.0,", "\"e\":1E+2,");
    }

    @Test
    void aNumberOfMoreThanAThousandDigitsIsStoredExactlyOverHttp() throws Exception {
        String document = "{\"id\":\"long\",\"customerId\":\"c1\",\"n\":" + LONG_INTEGER + ",\"d\":-" + LONG_INTEGER
                + "." + LONG_INTEGER + "e-7}";

        HttpResponse<String> created = send("POST", "/containers/orders/items", document);
        HttpResponse<String> read = send("GET", "/containers/orders/items/long", null);

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).startsWith(document.substring(0, document.length() - 1) + ",\"_rid\":");
    }

    @Test
    void aNumberAsLongAsAnItemAllowsIsStoredAndPatchedAround() {
        String digits = "7".repeat(DocumentValidator.MAX_ITEM_BYTES - 200);
        embedded.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"n\":" + digits + "}");

        Item patched = embedded.patchItem(ORDERS, C1, "n", List.of(PatchOperation.set("/other", IntNode.valueOf(1))));

        assertThat(patched.json()).startsWith("{\"id\":\"n\",\"customerId\":\"c1\",\"n\":" + digits + ",\"other\":1,");
    }

    @Test
    void numbersNoDecimalHoldsAreABadRequestWhereAValueIsNeeded() throws Exception {
        embedded.createContainer(ContainerProperties.of("keyed", "/pk"));

        HttpResponse<String> partitionKey = send("POST", "/containers/keyed/items",
                "{\"id\":\"a\",\"pk\":1e-2147483648}");
        HttpResponse<String> longPartitionKey = send("POST", "/containers/keyed/items",
                "{\"id\":\"b\",\"pk\":" + LONG_INTEGER + LONG_INTEGER + "}");
        HttpResponse<String> ttl = send("POST", "/containers/keyed/items", "{\"id\":\"c\",\"ttl\":1e-2147483648}");
        HttpResponse<String> longName = send("POST", "/containers/keyed/items",
                "{\"id\":\"d\",\"" + "x".repeat(60_000) + "\":1}");
        HttpResponse<String> negativeZeroKey = send("POST", "/containers/keyed/items", "{\"id\":\"e\",\"pk\":-0.0}");

        assertThat(partitionKey.statusCode()).isEqualTo(400);
        assertThat(partitionKey.body()).contains("Cannot write item 'a' to container keyed at /pk: the document has a "
                + "partition key number whose exponent no exact decimal holds: 1e-2147483648");
        assertThat(longPartitionKey.statusCode()).isEqualTo(400);
        assertThat(longPartitionKey.body()).contains("has a partition key value over 2048 bytes");
        assertThat(ttl.statusCode()).isEqualTo(400);
        assertThat(ttl.body()).contains("has ttl 1e-2147483648: an item's ttl is -1 (never expire)");
        assertThat(longName.statusCode()).isEqualTo(400);
        assertThat(longName.body()).contains("the document is not valid JSON: Name length");
        assertThat(negativeZeroKey.statusCode()).isEqualTo(201);
        assertThat(negativeZeroKey.body()).contains("\"pk\":-0.0,");
        assertThat(embedded.readItem("keyed", PartitionKey.of(0), "e").json()).isEqualTo(negativeZeroKey.body());
    }

    @Test
    void importLoadsALineWithAThousandDigitNumberAndGoesOnPastBadLines() throws IOException {
        String file = String.join("\n",
                "{\"id\":\"1\",\"customerId\":\"c1\",\"price\":-0.0}",
                "{\"id\":\"2\",\"customerId\":\"c1\",\"n\":" + LONG_INTEGER + "}",
                "{\"id\":\"3\",\"customerId\":\"c1\",",
                "{\"id\":\"4\",\"customerId\":\"c1\",\"n\":1e-2147483648}");
        ByteArrayOutputStream rejects = new ByteArrayOutputStream();

        JsonLinesImporter.Summary summary = new JsonLinesImporter(embedded, JsonLinesImporter.Options.defaults(ORDERS))
                .importStream(new ByteArrayInputStream(file.getBytes(StandardCharsets.UTF_8)), rejects,
                        JsonLinesImporter.Progress.NONE);

        assertThat(summary.loaded()).isEqualTo(3);
        assertThat(summary.firstRejections()).extracting(JsonLinesImporter.Rejection::line).containsExactly(3L);
        assertThat(embedded.readItem(ORDERS, C1, "1").json()).contains("\"price\":-0.0,");
        assertThat(embedded.readItem(ORDERS, C1, "2").json()).contains("\"n\":" + LONG_INTEGER + ",");
        assertThat(embedded.readItem(ORDERS, C1, "4").json()).contains("\"n\":1e-2147483648,");
    }

    @Test
    void importTakingIdsFromNumbersRejectsThoseNoIdCanSpellAndGoesOn() throws IOException {
        String file = String.join("\n",
                "{\"customerId\":\"c1\",\"n\":1e2}",
                "{\"customerId\":\"c1\",\"n\":1e2147483647}",
                "{\"customerId\":\"c1\",\"n\":1e-2147483648}",
                "{\"customerId\":\"c1\",\"n\":" + LONG_INTEGER + "}",
                "{\"customerId\":\"c1\",\"n\":-0}");
        ByteArrayOutputStream rejects = new ByteArrayOutputStream();
        JsonLinesImporter.Options options = new JsonLinesImporter.Options(ORDERS, IdAssignment.fromPath("/n"), false,
                false, JsonLinesImporter.Options.DEFAULT_BATCH_DOCUMENTS,
                JsonLinesImporter.Options.DEFAULT_BATCH_BYTES);

        JsonLinesImporter.Summary summary = new JsonLinesImporter(embedded, options).importStream(
                new ByteArrayInputStream(file.getBytes(StandardCharsets.UTF_8)), rejects,
                JsonLinesImporter.Progress.NONE);

        assertThat(summary.loaded()).isEqualTo(2);
        assertThat(summary.firstRejections()).extracting(JsonLinesImporter.Rejection::line)
                .containsExactly(2L, 3L, 4L);
        assertThat(summary.firstRejections()).extracting(JsonLinesImporter.Rejection::reason).containsExactly(
                "Line 2 has the number 1e2147483647 to take the id from, whose digits are over the id limit of "
                        + "1023 bytes",
                "Line 3 has the number 1e-2147483648 to take the id from, which has no exact decimal value",
                "Line 4 has a number of 1500 characters to take the id from, over the id limit of 1023 bytes");
        assertThat(embedded.readItem(ORDERS, C1, "100").json()).contains("\"n\":1e2,").doesNotContain("1E+2");
        assertThat(embedded.readItem(ORDERS, C1, "0").json()).contains("\"n\":-0,");
    }

    @Test
    void treesOfStoredItemsHoldExactValuesAndWriteBackTheirSpelling() {
        Item item = embedded.createItem(ORDERS, documentWithEveryNumber());
        JsonNode tree = item.tree();

        assertThat(tree.get("n0").doubleValue()).isEqualTo(-0.0d);
        assertThat(Double.doubleToRawLongBits(tree.get("n0").doubleValue()))
                .isEqualTo(Double.doubleToRawLongBits(-0.0d));
        assertThat(tree.get("n1").isIntegralNumber()).isTrue();
        assertThat(tree.get("n1").isInt()).isTrue();
        assertThat(tree.get("n5")).isEqualTo(IntNode.valueOf(1));
        assertThat(tree.get("n7").decimalValue()).isEqualByComparingTo("100");
        assertThat(tree.get("n18").isBigInteger()).isTrue();
        assertThat(tree.get("n18").bigIntegerValue().toString()).isEqualTo(LONG_INTEGER);
        assertThat(tree.get("n18").canConvertToLong()).isFalse();
        assertThat(tree.get("n5").canConvertToInt()).isTrue();
        assertThat(tree.toString()).isEqualTo(item.json());
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(store.server.baseUri() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        // A create takes its partition key from the document (a header that differed from it would be refused).
        if (!method.equals("POST")) {
            request.header("x-ms-documentdb-partitionkey", "[\"c1\"]");
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
