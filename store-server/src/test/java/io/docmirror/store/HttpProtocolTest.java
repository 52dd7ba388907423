package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP as Cosmos DB and RFC 9110 have it (issue 27, defect 6): a write whose partition key header contradicts its
 * document is refused; an unsupported method is 405 with {@code Allow}; HEAD is served wherever GET is; and pages
 * have a server-side cap ({@code store.http.max-page-items}, 1000 by default).
 */
class HttpProtocolTest {
    private static final String HEADER = "x-ms-documentdb-partitionkey";
    private static final int CAP = 1000;

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;
    private final List<String> routeSawMaxItems = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false),
                TestingClock.atEpochSecond(1_767_225_600), false);
        embedded.createContainer(ContainerProperties.of("orders", "/customerId").withLogPartitions(1));
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0),
                Map.of("echo", (container, query) -> {
                    routeSawMaxItems.add(query.get("maxItems"));
                    return "{}".getBytes(StandardCharsets.UTF_8);
                }));
    }

    @AfterEach
    void tearDown() {
        server.close();
        embedded.close();
    }

    @Test
    void aWriteWhosePartitionKeyHeaderContradictsItsDocumentIsRefused() throws Exception {
        for (boolean upsert : new boolean[] {false, true}) {
            RawHttp request = RawHttp.request("POST", "/containers/orders/items")
                    .header(HEADER, "[\"c2\"]")
                    .body("{\"id\":\"o1\",\"customerId\":\"c1\"}");
            if (upsert) {
                request.header("x-ms-documentdb-is-upsert", "true");
            }
            RawHttp.Response response = request.send(server.port());

            assertThat(response.status()).as(response.toString()).isEqualTo(400);
            assertThat(response.bodyText()).contains("Cannot write item to container orders: the document's partition "
                    + "key [\\\"c1\\\"] (at /customerId) differs from the stated partition key [\\\"c2\\\"] (over "
                    + "HTTP, the " + HEADER + " header)");
        }
        assertThat(embedded.readPartition("orders", PartitionKey.of("c1"))).isEmpty();
        assertThat(embedded.readPartition("orders", PartitionKey.of("c2"))).isEmpty();

        // A header that agrees, including [{}] for a document without the property, is fine.
        assertThat(RawHttp.request("POST", "/containers/orders/items").header(HEADER, "[\"c1\"]")
                .body("{\"id\":\"o1\",\"customerId\":\"c1\"}").send(server.port()).status()).isEqualTo(201);
        assertThat(RawHttp.request("POST", "/containers/orders/items").header(HEADER, "[{}]")
                .body("{\"id\":\"o2\"}").send(server.port()).status()).isEqualTo(201);
        assertThat(RawHttp.request("POST", "/containers/orders/items").header(HEADER, "[null]")
                .body("{\"id\":\"o3\"}").send(server.port()).status()).isEqualTo(400);
    }

    @Test
    void anUnsupportedMethodIs405WithTheAllowedOnes() throws Exception {
        Map<String, String> allowed = Map.of(
                "PUT /containers", "GET, HEAD, POST",
                "PATCH /containers/orders", "GET, HEAD, PUT, DELETE",
                "DELETE /containers/orders/items", "GET, HEAD, POST",
                "POST /containers/orders/items/o1", "GET, HEAD, PUT, PATCH, DELETE",
                "GET /containers/orders/batch", "POST",
                "PUT /containers/orders/bulk/operations", "POST",
                "DELETE /containers/orders/scan/0", "GET, HEAD",
                "POST /containers/orders/changelog/0", "GET, HEAD",
                "TRACE /containers/orders/echo", "GET, HEAD");
        for (Map.Entry<String, String> entry : allowed.entrySet()) {
            String[] request = entry.getKey().split(" ");
            RawHttp.Response response = RawHttp.request(request[0], request[1]).header(HEADER, "[\"c1\"]")
                    .send(server.port());

            assertThat(response.status()).as("%s: %s", entry.getKey(), response).isEqualTo(405);
            assertThat(response.header("Allow")).as(entry.getKey()).contains(entry.getValue());
            assertThat(response.bodyText()).as(entry.getKey())
                    .contains("\"status\":405", "Method " + request[0] + " is not supported on " + request[1]);
        }
    }

    @Test
    void headIsAnsweredWhereverGetIsWithoutTheBody() throws Exception {
        Item item = embedded.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        for (String path : List.of("/containers", "/containers/orders", "/containers/orders/items/o1",
                "/containers/orders/items", "/containers/orders/scan/0", "/containers/orders/changelog/0",
                "/containers/orders/echo", "/containers/orders/items/missing")) {
            RawHttp.Response get = RawHttp.request("GET", path).header(HEADER, "[\"c1\"]").send(server.port());
            RawHttp.Response head = RawHttp.request("HEAD", path).header(HEADER, "[\"c1\"]").send(server.port());

            assertThat(head.status()).as("%s: %s", path, head).isEqualTo(get.status());
            assertThat(head.body()).as(path).isEmpty();
            assertThat(head.header("Content-Length")).as(path).contains(Integer.toString(get.body().length));
            assertThat(head.header("Content-Type")).as(path).isEqualTo(get.header("Content-Type"));
        }
        RawHttp.Response head = RawHttp.request("HEAD", "/containers/orders/items/o1").header(HEADER, "[\"c1\"]")
                .send(server.port());
        assertThat(head.header("ETag")).contains(item.etag());
        assertThat(head.header(HEADER)).contains("[\"c1\"]");
    }

    @Test
    void pagesAreCappedByTheServer() throws Exception {
        List<byte[]> documents = new ArrayList<>();
        for (int index = 0; index < CAP + 200; index++) {
            documents.add(("{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 7 + "\"}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        assertThat(embedded.bulkWrite("orders", documents, BulkOptions.CREATE).written()).isEqualTo(CAP + 200);

        JsonNode scan = json(RawHttp.request("GET", "/containers/orders/scan/0?maxItems=5000").send(server.port()));
        JsonNode scanDefault = json(RawHttp.request("GET", "/containers/orders/scan/0").send(server.port()));
        JsonNode changeLog = json(RawHttp.request("GET", "/containers/orders/changelog/0?after=0&maxEvents=5000")
                .send(server.port()));
        JsonNode small = json(RawHttp.request("GET", "/containers/orders/scan/0?maxItems=3").send(server.port()));
        RawHttp.request("GET", "/containers/orders/echo?maxItems=5000").send(server.port());
        RawHttp.request("GET", "/containers/orders/echo").send(server.port());
        RawHttp.request("GET", "/containers/orders/echo?maxItems=7").send(server.port());

        assertThat(scan.get("items")).hasSize(CAP);
        assertThat(scan.get("continuation").isTextual()).as("a continuation reads on").isTrue();
        assertThat(scanDefault.get("items")).hasSize(CAP);
        assertThat(changeLog.get("events")).hasSize(CAP);
        assertThat(small.get("items")).hasSize(3);
        assertThat(routeSawMaxItems).containsExactly(Integer.toString(CAP), Integer.toString(CAP), "7");

        // However a count is written, the cap holds: no length or leading zero slips past it.
        routeSawMaxItems.clear();
        for (String asked : List.of("2147483647", "0000005000", "99999999999999999999", "0007")) {
            assertThat(json(RawHttp.request("GET", "/containers/orders/scan/0?maxItems=" + asked)
                    .send(server.port())).get("items")).as("a scan page of maxItems=%s", asked)
                    .hasSize(asked.equals("0007") ? 7 : CAP);
            assertThat(json(RawHttp.request("GET", "/containers/orders/changelog/0?after=0&maxEvents=" + asked)
                    .send(server.port())).get("events")).as("a change log page of maxEvents=%s", asked)
                    .hasSize(asked.equals("0007") ? 7 : CAP);
            RawHttp.request("GET", "/containers/orders/echo?maxItems=" + asked).send(server.port());
        }
        assertThat(routeSawMaxItems).containsExactly(Integer.toString(CAP), Integer.toString(CAP),
                Integer.toString(CAP), "7");
        // Anything but digits, or no item at all, is refused by name.
        for (String asked : List.of("%2B5000", "-5", "0", "5e3", "")) {
            for (String target : List.of("/containers/orders/scan/0?maxItems=", "/containers/orders/echo?maxItems=")) {
                RawHttp.Response refused = RawHttp.request("GET", target + asked).send(server.port());
                assertThat(refused.status()).as("%s%s: %s", target, asked, refused).isEqualTo(400);
                assertThat(refused.bodyText()).as("%s%s", target, asked).contains("Invalid maxItems");
            }
        }

        // Reading on after the capped page gives the rest.
        JsonNode rest = json(RawHttp.request("GET", "/containers/orders/scan/0?maxItems=5000&continuation="
                + scan.get("continuation").textValue()).send(server.port()));
        assertThat(rest.get("items")).hasSize(200);
    }

    /**
     * A request with both Transfer-Encoding and Content-Length (request smuggling: a proxy reading the other header
     * sees another request boundary) is refused with 400 and its connection closed; nothing of it is served.
     */
    @Test
    void aRequestWithBothTransferEncodingAndContentLengthIsRefusedAndItsConnectionClosed() throws Exception {
        String body = "{\"id\":\"o1\",\"customerId\":\"c1\"}";
        String smuggled = "GET /containers/orders/items/o1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + HEADER + ": [\"c1\"]\r\n\r\n";
        String request = "POST /containers/orders/items HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + HEADER + ": [\"c1\"]\r\nContent-Length: " + (body.length() + 2)
                + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n" + smuggled;
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            // Read until the server closes: one answer, and no second one for the smuggled request.
            RawHttp.Response response = RawHttp.readResponse(socket.getInputStream());
            assertThat(response.status()).as(response.toString()).isEqualTo(400);
            assertThat(response.bodyText()).contains("both Transfer-Encoding and Content-Length");
            assertThat(response.bodyText()).as("one answer only").doesNotContain("HTTP/1.1");
            assertThat(response.header("Connection")).contains("close");
        }
        assertThat(embedded.readPartition("orders", PartitionKey.of("c1"))).as("nothing was written").isEmpty();
    }

    private static JsonNode json(RawHttp.Response response) throws Exception {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return StoreJson.mapper().readTree(response.body());
    }
}
