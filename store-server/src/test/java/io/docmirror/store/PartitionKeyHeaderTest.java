package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The partition key travels in the {@code x-ms-documentdb-partitionkey} header, which HTTP carries as bytes. It goes
 * as ASCII JSON with {@code \\u} escapes, both ways, as Cosmos DB writes it (issue 27, defect 1): a key can neither
 * forge headers of the answers other clients get nor come back as other characters.
 */
class PartitionKeyHeaderTest {
    private static final String CONTAINER = "tenants";
    private static final String HEADER = "x-ms-documentdb-partitionkey";
    /** Characters whose low bytes are CR and LF: written one byte per character, they end the header line. */
    private static final String SPLITTING =
            "x\u010d\u010aInjected-Header: yes\u010d\u010a\u010d\u010a<html>owned</html>";
    /** Keys with characters whose low byte is 0x0D, 0x0A or 0x22, beyond Latin-1, and the raw ones. */
    private static final List<String> KEYS = List.of(SPLITTING, "quote\u0122s\u0122", "日本", "line\r\nbreak",
            "\"quoted\"", "tab\tand\u007fdel", "face \uD83D\uDE00", "back\\slash", "plain");

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;
    private HttpStoreClient client;

    @BeforeEach
    void setUp() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        embedded.createContainer(ContainerProperties.of(CONTAINER, "/tenant"));
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        client = new HttpStoreClient(server.baseUri(), Optional.empty());
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.close();
        embedded.close();
    }

    @Test
    void keysOfAnyCharactersGoThroughTheClientUnchanged() {
        for (String key : KEYS) {
            PartitionKey partitionKey = PartitionKey.of(key);
            Item created = client.createItem(CONTAINER, document(key, 1));
            assertThat(created.partitionKey()).as(key).isEqualTo(partitionKey);
            assertThat(embedded.findItem(CONTAINER, partitionKey, "i")).as(key).isPresent();

            Item read = client.readItem(CONTAINER, partitionKey, "i");
            assertThat(read).as(key).isEqualTo(created);
            assertThat(read.partitionKey()).as(key).isEqualTo(partitionKey);
            // A list carries each document inside an envelope, which the client reads as a tree: the same JSON.
            assertThat(client.readPartition(CONTAINER, partitionKey)).as(key).singleElement().satisfies(item -> {
                assertThat(item.partitionKey()).isEqualTo(partitionKey);
                assertThat(item.etag()).isEqualTo(created.etag());
                assertThat(item.tree()).isEqualTo(created.tree());
            });

            Item replaced = client.replaceItem(CONTAINER, partitionKey, "i", new String(document(key, 2),
                    StandardCharsets.UTF_8));
            assertThat(replaced.partitionKey()).as(key).isEqualTo(partitionKey);
            Item patched = client.patchItem(CONTAINER, partitionKey, "i",
                    List.of(PatchOperation.set("/v", TextNode.valueOf(key))));
            assertThat(patched.tree().get("v").textValue()).as(key).isEqualTo(key);
            assertThat(client.executeBatch(CONTAINER, partitionKey, List.of(BatchOperation.read("i"))).isSuccess())
                    .as(key).isTrue();

            client.deleteItem(CONTAINER, partitionKey, "i");
            assertThat(embedded.findItem(CONTAINER, partitionKey, "i")).as(key).isEmpty();
        }
    }

    /** The answer's head, byte for byte: printable ASCII lines, no forged header, and the key as escaped JSON. */
    @Test
    void theAnswersHeaderIsAsciiJsonThatForgesNothing() throws Exception {
        for (String key : KEYS) {
            embedded.upsertItem(CONTAINER, document(key, 1), Precondition.NONE);

            RawHttp.Response response = RawHttp.request("GET", "/containers/" + CONTAINER + "/items/i")
                    .header(HEADER, escapedWire(key))
                    .send(server.port());

            assertThat(response.status()).as("%s: %s", key, response).isEqualTo(200);
            assertPrintableAsciiLines(response);
            assertThat(response.headers()).as(response.toString())
                    .extracting(header -> header[0].toLowerCase(java.util.Locale.ROOT))
                    .doesNotContain("injected-header")
                    .contains(HEADER, "etag", "content-length");
            assertThat(wireValue(response.header(HEADER).orElseThrow())).as(response.toString()).isEqualTo(key);
            assertThat(StoreJson.mapper().readTree(response.body()).get("tenant").textValue()).isEqualTo(key);
        }
    }

    @Test
    void aCreateAnswersWithTheKeyEscapedToo() throws Exception {
        RawHttp.Response response = RawHttp.request("POST", "/containers/" + CONTAINER + "/items")
                .body(document(SPLITTING, 1))
                .send(server.port());

        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        assertPrintableAsciiLines(response);
        assertThat(response.header("Injected-Header")).as(response.toString()).isEmpty();
        assertThat(response.header(HEADER)).contains(
                "[\"x\\u010d\\u010aInjected-Header: yes\\u010d\\u010a\\u010d\\u010a<html>owned</html>\"]");
    }

    /** A request header is read as UTF-8 (curl sends ["日本"] so), escaped or not; bytes that are not UTF-8 are 400. */
    @Test
    void theRequestHeaderIsReadAsUtf8() throws Exception {
        embedded.createItem(CONTAINER, document("日本", 1));
        String path = "/containers/" + CONTAINER + "/items/i";

        RawHttp.Response escaped = RawHttp.request("GET", path).header(HEADER, "[\"\\u65e5\\u672c\"]")
                .send(server.port());
        RawHttp.Response raw = RawHttp.request("GET", path)
                .header(HEADER, "[\"日本\"]".getBytes(StandardCharsets.UTF_8))
                .send(server.port());
        RawHttp.Response latin1 = RawHttp.request("GET", path)
                .header(HEADER, new byte[] {'[', '"', (byte) 0xE6, (byte) 0x97, '"', ']'})
                .send(server.port());

        assertThat(escaped.status()).as(escaped.toString()).isEqualTo(200);
        assertThat(raw.status()).as(raw.toString()).isEqualTo(200);
        assertThat(raw.body()).isEqualTo(escaped.body());
        assertThat(latin1.status()).as(latin1.toString()).isEqualTo(400);
        assertThat(latin1.bodyText()).contains("Invalid header " + HEADER + ": its value is not UTF-8");
    }

    @Test
    void aHeaderWithTrailingContentIsRefused() throws Exception {
        RawHttp.Response response = RawHttp.request("GET", "/containers/" + CONTAINER + "/items/i")
                .header(HEADER, "[\"a\"] [\"b\"]")
                .send(server.port());

        assertThat(response.status()).as(response.toString()).isEqualTo(400);
        assertThat(response.bodyText()).contains("Invalid header " + HEADER);
    }

    private static byte[] document(String key, int version) {
        ObjectNode document = StoreJson.mapper().createObjectNode();
        document.put("id", "i");
        document.put("tenant", key);
        document.put("v", version);
        return document.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The key as Cosmos DB writes the header: a JSON array with every character outside printable ASCII escaped. */
    private static String escapedWire(String key) {
        StringBuilder wire = new StringBuilder("[\"");
        for (char c : key.toCharArray()) {
            if (c == '"' || c == '\\') {
                wire.append('\\').append(c);
            }
            else if (c < 0x20 || c >= 0x7F) {
                wire.append(String.format("\\u%04x", (int) c));
            }
            else {
                wire.append(c);
            }
        }
        return wire.append("\"]").toString();
    }

    private static String wireValue(String header) throws Exception {
        JsonNode array = StoreJson.mapper().readTree(header);
        assertThat(array.isArray() && array.size() == 1).as(header).isTrue();
        return array.get(0).textValue();
    }

    private static void assertPrintableAsciiLines(RawHttp.Response response) {
        byte[] head = response.head();
        for (int index = 0; index < head.length; index++) {
            int b = head[index] & 0xFF;
            boolean lineEnd = b == '\r' && index + 1 < head.length && head[index + 1] == '\n'
                    || b == '\n' && index > 0 && head[index - 1] == '\r';
            assertThat(lineEnd || b >= 0x20 && b < 0x7F)
                    .as("byte %d (0x%02x) of the answer's head:%n%s", index, b, response)
                    .isTrue();
        }
    }
}
