package io.docmirror.store;

import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slow clients (issue 27, defect 2): connections that send half a request and then nothing must not stop the API for
 * anyone else. With the JDK's server 17 of them did, indefinitely: each held one of 16 blocking threads.
 */
class SlowClientTest {
    /** Four times the old server's threads; far below the connection limit. */
    private static final int HALF_SENT = 64;
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;
    private final List<Socket> slowClients = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        embedded.createContainer(ContainerProperties.of("orders", "/customerId"));
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
    }

    @AfterEach
    void tearDown() throws IOException {
        for (Socket socket : slowClients) {
            socket.close();
        }
        server.close();
        embedded.close();
    }

    @Test
    void halfSentRequestsDoNotStopTheApi() throws Exception {
        List<String> halves = List.of(
                "PO",                                                                    // half a request line
                "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",               // half the headers
                "POST /containers/orders/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{\"id\":");
        for (int index = 0; index < HALF_SENT; index++) {
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
            slowClients.add(socket);
            socket.getOutputStream().write(halves.get(index % halves.size()).getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
        }

        long start = System.nanoTime();
        HttpClient http = HttpClient.newHttpClient();
        CompletableFuture<HttpResponse<String>> write = http.sendAsync(HttpRequest.newBuilder(
                        URI.create(server.baseUri() + "/containers/orders/items"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"o1\",\"customerId\":\"c1\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> answer;
        try {
            answer = write.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (TimeoutException e) {
            write.cancel(true);
            throw new AssertionError("A normal request got no answer within " + PROMPTLY.toSeconds() + " s while "
                    + HALF_SENT + " connections held half-sent requests: the server holds a thread per slow client",
                    e);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(answer.statusCode()).as("answer after %d ms: %s", millis, answer.body()).isEqualTo(201);
        assertThat(embedded.findItem("orders", PartitionKey.of("c1"), "o1")).isPresent();
        HttpResponse<String> read = http.sendAsync(HttpRequest.newBuilder(URI.create(server.baseUri() + "/containers"))
                .build(), HttpResponse.BodyHandlers.ofString()).get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
    }
}
