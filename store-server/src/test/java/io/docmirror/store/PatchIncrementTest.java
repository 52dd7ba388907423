package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.json.LiteralNumberNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Patch {@code incr} computes as Cosmos DB does: an integer plus an integer is a 64-bit integer, any other sum a
 * double; numbers neither holds are refused with 400, at the cost of parsing a double whatever their exponent.
 */
class PatchIncrementTest {
    private static final String ORDERS = "orders";
    private static final PartitionKey C1 = PartitionKey.of("c1");
    private static final String LONG_INTEGER = "9".repeat(1500);

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

    @ParameterizedTest
    @ValueSource(strings = {"1e-10000000", "1e2147483647", "-1e2147483647", "1e-2147483648", "1e400"})
    void anIncrementNoLongOrDoubleHoldsIsABadRequestAnsweredAtOnce(String value) throws Exception {
        embedded.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"count\":1,\"keep\":1e-10000000}");
        String before = embedded.readItem(ORDERS, C1, "n").json();

        for (String path : List.of("/count", "/missing")) {
            long start = System.nanoTime();
            HttpResponse<String> response = send("PATCH", "/containers/orders/items/n",
                    "{\"operations\":[{\"op\":\"incr\",\"path\":\"" + path + "\",\"value\":" + value + "}]}");
            System.out.printf("incr %s by %s: %d in %.1f ms%n", path, value, response.statusCode(),
                    (System.nanoTime() - start) / 1e6);

            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).contains("operation 1 (incr " + path + ") needs a 'value' that a 64-bit "
                    + "integer or a double holds: " + value + " is ");
        }
        assertThat(embedded.readItem(ORDERS, C1, "n").json()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void aStoredNumberNoLongOrDoubleHoldsCannotBeIncrementedAndStaysAsWritten(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"long\":" + LONG_INTEGER
                + ",\"huge\":1e2147483647,\"tiny\":1e-2147483648,\"small\":1e-10000000}");
        String before = store.readItem(ORDERS, C1, "n").json();

        assertRefused(store, PatchOperation.incr("/long", IntNode.valueOf(1)), "operation 1 (incr /long) cannot "
                + "increment the stored number, which a 64-bit integer or a double must hold: 9999999999");
        assertRefused(store, PatchOperation.incr("/huge", IntNode.valueOf(1)), "operation 1 (incr /huge) cannot "
                + "increment the stored number, which a 64-bit integer or a double must hold: 1e2147483647 is "
                + "beyond the range of a 64-bit integer and of a double");
        assertRefused(store, PatchOperation.incr("/tiny", IntNode.valueOf(1)), "(incr /tiny) cannot increment the "
                + "stored number, which a 64-bit integer or a double must hold: 1e-2147483648 is too close to zero "
                + "for a double, which would make it 0");
        assertRefused(store, PatchOperation.incr("/small", DoubleNode.valueOf(0.5)), "(incr /small) cannot "
                + "increment the stored number");
        assertThat(store.readItem(ORDERS, C1, "n").json()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void integersAddAsLongsAndAnOverflowIsABadRequest(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"max\":9223372036854775807,"
                + "\"min\":-9223372036854775808,\"count\":2147483647,\"keep\":1.50}");
        String before = store.readItem(ORDERS, C1, "n").json();

        assertRefused(store, PatchOperation.incr("/max", IntNode.valueOf(1)), "operation 1 (incr /max) cannot "
                + "increment 9223372036854775807 by 1: the sum of two integers is a 64-bit integer, and this one "
                + "overflows it");
        assertRefused(store, PatchOperation.incr("/min", LongNode.valueOf(-1)), "(incr /min) cannot increment "
                + "-9223372036854775808 by -1: the sum of two integers is a 64-bit integer");
        assertThat(store.readItem(ORDERS, C1, "n").json()).isEqualTo(before);

        Item patched = store.patchItem(ORDERS, C1, "n", List.of(
                PatchOperation.incr("/max", LongNode.valueOf(-9223372036854775807L)),
                PatchOperation.incr("/min", new LiteralNumberNode("9223372036854775807")),
                PatchOperation.incr("/count", IntNode.valueOf(1))));

        assertThat(patched.json()).contains("\"max\":0,", "\"min\":-1,", "\"count\":2147483648,", "\"keep\":1.50,");
        assertThat(patched.tree().get("count").isIntegralNumber()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void anySumWithANonIntegerIsADoubleAndAnInfiniteOneIsABadRequest(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"a\":0.1,\"b\":1,\"c\":1e2,"
                + "\"d\":9223372036854775808,\"e\":1e308,\"keep\":0.0000001}");
        String before = store.readItem(ORDERS, C1, "n").json();

        assertRefused(store, PatchOperation.incr("/e", new LiteralNumberNode("1e308")), "operation 1 (incr /e) "
                + "cannot increment 1.0E308 by 1.0E308: the sum of a non-integer is a double, and this one is beyond "
                + "a double's range");
        assertThat(store.readItem(ORDERS, C1, "n").json()).isEqualTo(before);

        Item patched = store.patchItem(ORDERS, C1, "n", List.of(
                PatchOperation.incr("/a", new LiteralNumberNode("0.2")),
                PatchOperation.incr("/b", new LiteralNumberNode("0.5")),
                PatchOperation.incr("/c", IntNode.valueOf(1)),
                PatchOperation.incr("/d", IntNode.valueOf(1)),
                PatchOperation.incr("/e", new LiteralNumberNode("-1e308"))));

        // As Cosmos DB computes them: 0.1 + 0.2 is the double 0.30000000000000004, 1e2 is a double, and so is an
        // integer beyond a long.
        JsonNode tree = patched.tree();
        assertThat(tree.get("a").doubleValue()).isEqualTo(0.1 + 0.2);
        assertThat(tree.get("b").doubleValue()).isEqualTo(1.5);
        assertThat(tree.get("c").doubleValue()).isEqualTo(101.0);
        assertThat(tree.get("c").isIntegralNumber()).isFalse();
        assertThat(tree.get("d").doubleValue()).isEqualTo(9.223372036854775808e18);
        assertThat(tree.get("e").doubleValue()).isEqualTo(0.0);
        assertThat(patched.json()).contains("\"keep\":0.0000001,");
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void negativeZerosAddAsDoublesDo(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"a\":-0,\"b\":-0,\"c\":-0,\"d\":-0.0,"
                + "\"e\":0,\"keep\":-0}");

        Item patched = store.patchItem(ORDERS, C1, "n", List.of(
                PatchOperation.incr("/a", new LiteralNumberNode("-0.0")),
                PatchOperation.incr("/b", IntNode.valueOf(1)),
                PatchOperation.incr("/c", IntNode.valueOf(0)),
                PatchOperation.incr("/d", new LiteralNumberNode("-0")),
                PatchOperation.incr("/e", new LiteralNumberNode("-0"))));

        assertThat(patched.json()).contains("\"a\":-0.0,", "\"b\":1,", "\"c\":0,", "\"d\":-0.0,", "\"e\":0,",
                "\"keep\":-0,");
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "http"})
    void anIncrementThatIsNotANumberIsABadRequestNamingThePath(String kind) {
        StoreClient store = client(kind);
        store.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"count\":1}");
        String before = store.readItem(ORDERS, C1, "n").json();

        assertRefused(store, PatchOperation.incr("/count", TextNode.valueOf("1")), "operation 1 (incr /count) "
                + "needs a numeric 'value' (a 64-bit integer or a double), not \"1\"");
        assertRefused(store, PatchOperation.incr("/count", TextNode.valueOf("x".repeat(100))), "not \"xxxxxxxx");
        assertThat(store.readItem(ORDERS, C1, "n").json()).isEqualTo(before);
    }

    @Test
    void anIncrementNotANumberSentAsJsonIsABadRequest() throws Exception {
        embedded.createItem(ORDERS, "{\"id\":\"n\",\"customerId\":\"c1\",\"count\":1}");
        String before = embedded.readItem(ORDERS, C1, "n").json();

        for (String value : List.of("\"1\"", "true", "null", "[1]", "{\"n\":1}")) {
            HttpResponse<String> response = send("PATCH", "/containers/orders/items/n",
                    "{\"operations\":[{\"op\":\"incr\",\"path\":\"/count\",\"value\":" + value + "}]}");

            assertThat(response.statusCode()).as(value).isEqualTo(400);
            assertThat(response.body()).as(value).contains("operation 1 (incr /count) needs a");
        }
        assertThat(embedded.readItem(ORDERS, C1, "n").json()).isEqualTo(before);
    }

    private static void assertRefused(StoreClient store, PatchOperation operation, String message) {
        assertThatThrownBy(() -> store.patchItem(ORDERS, C1, "n", List.of(operation)))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.httpStatus()).isEqualTo(400))
                .hasMessageContaining(message);
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(store.server.baseUri() + path))
                .header("x-ms-documentdb-partitionkey", "[\"c1\"]")
                .method(method, HttpRequest.BodyPublishers.ofString(body))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
