package io.docmirror.store;

import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bounds of the HTTP server: each connection in time ({@code store.http.request-timeout-ms}, {@code
 * idle-timeout-ms}), their number ({@code max-connections}) and each request in size; and a close that finishes
 * what it accepted and frees every thread.
 */
class HttpConnectionLimitsTest {
    /** How long a test waits for something the server must do within a second or so. */
    private static final int WAIT_MS = 10_000;

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;
    private final List<Socket> sockets = new ArrayList<>();

    private void start(Map<String, String> options) throws IOException {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        embedded.createContainer(ContainerProperties.of("orders", "/customerId"));
        server = StoreHttpServer.start(embedded, StoreConfig.fromProperties(options).withHttp("127.0.0.1", 0),
                Map.of("slow", (container, query) -> slowRoute()));
    }

    private CountDownLatch slowRouteEntered = new CountDownLatch(1);
    private CountDownLatch slowRouteReleased = new CountDownLatch(1);

    private byte[] slowRoute() {
        slowRouteEntered.countDown();
        try {
            if (!slowRouteReleased.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the test never released the slow route");
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return "{\"slow\":true}".getBytes(StandardCharsets.UTF_8);
    }

    @AfterEach
    void tearDown() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        slowRouteReleased.countDown();
        if (server != null) {
            server.close();
        }
        if (embedded != null) {
            embedded.close();
        }
    }

    @Test
    void aRequestThatDoesNotArriveInTimeIsAnswered408AndClosed() throws Exception {
        start(Map.of("store.http.request-timeout-ms", "500"));
        Socket silent = connect();
        Socket halfHeaders = connect();
        write(halfHeaders, "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
        Socket halfBody = connect();
        write(halfBody, "POST /containers/orders/items HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id\"");

        for (Socket socket : List.of(silent, halfHeaders, halfBody)) {
            String answer = readUntilClosed(socket);
            assertThat(answer).startsWith("HTTP/1.1 408").contains("store.http.request-timeout-ms");
        }
        assertThat(embedded.findItem("orders", PartitionKey.nullValue(), "id")).isEmpty();
    }

    /** Sending a byte now and then does not keep a request open: the limit counts from its first byte. */
    @Test
    void aRequestSentByteByByteIsCutOffAtTheTimeout() throws Exception {
        start(Map.of("store.http.request-timeout-ms", "1000"));
        Socket drip = connect();
        byte[] request = "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII);
        long start = System.nanoTime();
        int sent = 0;
        try {
            for (; sent < request.length && drip.getInputStream().available() == 0; sent++) {
                drip.getOutputStream().write(request[sent]);
                drip.getOutputStream().flush();
                // The pace of a slow client, not a wait for the server: 100 ms a byte takes 8 s for the request.
                Thread.sleep(100);
            }
        }
        catch (IOException e) {
            // The server closed the connection while we were still sending: what we expect.
        }
        String answer = readUntilClosed(drip);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(answer).as("after %d of %d bytes, %d ms", sent, request.length, millis).startsWith("HTTP/1.1 408");
        assertThat(sent).as("bytes sent before the server closed").isLessThan(request.length);
    }

    @Test
    void anIdleKeptAliveConnectionIsClosed() throws Exception {
        start(Map.of("store.http.idle-timeout-ms", "300"));
        Socket socket = connect();
        write(socket, "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");

        String answer = readUntilClosed(socket);

        assertThat(answer).startsWith("HTTP/1.1 200").contains("\"containers\"");
    }

    @Test
    void connectionsBeyondTheLimitAreClosedAtOnceAndTheLimitFreesUp() throws Exception {
        start(Map.of("store.http.max-connections", "4"));
        // Four kept-alive connections from four addresses (one address may hold a quarter), each proven open.
        for (int index = 0; index < 4; index++) {
            Socket socket = connectFrom(client(index));
            write(socket, "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(readHead(socket)).startsWith("HTTP/1.1 200");
        }
        Socket fifth = connectFrom(client(4));
        assertThat(readUntilClosed(fifth)).as("what the fifth connection got before it was closed").isEmpty();

        sockets.get(0).close();
        // The server learns of the close asynchronously: ask until a connection is taken again.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        List<String> seen = new ArrayList<>();
        String answer = "";
        while (!answer.startsWith("HTTP/1.1 200") && System.nanoTime() < deadline) {
            Socket again = connectFrom(client(4));
            write(again, "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            answer = readUntilClosed(again);
            seen.add(answer.isEmpty() ? "(closed)" : answer.substring(0, answer.indexOf('\r')));
        }
        assertThat(answer).as("answers while a slot freed up: %s", seen).startsWith("HTTP/1.1 200");
    }

    /**
     * One client holding the pool's worth of idle sockets (issue 41, defect 2) neither fills the pool nor keeps
     * another address out: it holds a quarter at most, each newer idle socket of its own pushing its oldest one out,
     * and a newcomer finding the pool full pushes out the oldest socket that has sent no request.
     */
    @Test
    void oneAddressHoldingIdleSocketsCannotShutOthersOut() throws Exception {
        start(Map.of("store.http.max-connections", "8"));
        InetAddress hostile = client(9);
        List<Socket> idle = new ArrayList<>();
        for (int index = 0; index < 8; index++) {
            idle.add(connectFrom(hostile));
        }
        // It holds two (a quarter of 8): six were closed as its newer ones came.
        awaitClosedByServer(idle, 6, "the hostile address's idle sockets, beyond its share");
        // Six other clients, each at once served, on sockets kept open.
        for (int index = 0; index < 6; index++) {
            Socket socket = connectFrom(client(index));
            write(socket, "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(readHead(socket)).as("client %d", index).startsWith("HTTP/1.1 200");
        }
        // The pool is full (two idle, six that sent a request): a newcomer pushes out the oldest idle socket.
        Socket newcomer = connectFrom(client(6));
        write(newcomer, "GET /containers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        assertThat(readUntilClosed(newcomer)).startsWith("HTTP/1.1 200");
        awaitClosedByServer(idle, 7, "the hostile address's idle sockets, once a newcomer found the pool full");
    }

    /**
     * Waits (bounded) until the server has closed {@code count} of {@code sockets}, each of which was sent nothing;
     * fails naming how many it saw closed.
     */
    private static void awaitClosedByServer(List<Socket> sockets, int count, String what) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        Set<Socket> closed = new HashSet<>();
        while (closed.size() < count) {
            assertThat(System.nanoTime()).as("%s: %d of %d closed by the server within %d ms", what, closed.size(),
                    count, WAIT_MS).isLessThan(deadline);
            for (Socket socket : sockets) {
                if (!closed.contains(socket) && hasEnded(socket)) {
                    closed.add(socket);
                }
            }
        }
        assertThat(closed).as(what).hasSize(count);
    }

    /** Whether the server has closed the socket: its end of stream arrives within a short read. */
    private static boolean hasEnded(Socket socket) throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(20);
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            // Reset rather than closed: the server is gone from it all the same.
            return true;
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    /** A client address of the loopback network (any 127.0.0.0/8 address reaches the server on Linux). */
    private static InetAddress client(int index) throws IOException {
        return InetAddress.getByAddress(new byte[] {127, 0, 1, (byte) (index + 1)});
    }

    @Test
    void anOversizedRequestIsRefusedWithAJsonErrorBeforeItIsRead() throws Exception {
        start(Map.of());
        RawHttp.Response longLine = RawHttp.request("GET", "/containers/" + "a".repeat(20_000)).send(server.port());
        RawHttp.Response manyHeaders = RawHttp.request("GET", "/containers")
                .header("X-Big", "b".repeat(40_000)).send(server.port());
        Socket socket = connect();
        write(socket, "POST /containers/orders/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                + (64 * 1024 * 1024 + 1) + "\r\n\r\n{");
        String tooLarge = readUntilClosed(socket);

        assertThat(longLine.status()).as(longLine.toString()).isEqualTo(414);
        assertThat(longLine.bodyText()).contains("\"status\":414").contains("over the limit of 16384 bytes");
        assertThat(manyHeaders.status()).as(manyHeaders.toString()).isEqualTo(431);
        assertThat(manyHeaders.bodyText()).contains("\"status\":431").contains("over the limit of 32768 bytes");
        assertThat(tooLarge).startsWith("HTTP/1.1 413")
                .contains("{\"code\":\"TOO_LARGE\",\"status\":413,\"message\":\"Request body is over the limit of "
                        + "67108864 bytes\"}");
    }

    /** close() stops accepting, answers the request in flight, then frees the event loops and the store's threads. */
    @Test
    void closeFinishesTheRequestInFlightAndFreesEveryThread() throws Exception {
        start(Map.of());
        int port = server.port();
        CompletableFuture<RawHttp.Response> inFlight = CompletableFuture.supplyAsync(() -> {
            try {
                return RawHttp.request("GET", "/containers/orders/slow").send(port);
            }
            catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(slowRouteEntered.await(WAIT_MS, TimeUnit.MILLISECONDS)).as("the slow request started").isTrue();

        CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
        // Once the listener is closed, a new connection is refused; the request in flight still waits.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        boolean refused = false;
        while (!refused && System.nanoTime() < deadline) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                probe.setSoLinger(true, 0);
            }
            catch (SocketException e) {
                // Refused, or reset while waiting in the closing listener's queue: not accepted either way.
                refused = true;
            }
        }
        assertThat(refused).as("new connections refused while closing").isTrue();
        assertThat(inFlight).as("the request in flight").isNotDone();
        assertThat(closing).as("close waits for it").isNotDone();

        slowRouteReleased.countDown();
        RawHttp.Response answer = inFlight.get(WAIT_MS, TimeUnit.MILLISECONDS);
        closing.get(WAIT_MS, TimeUnit.MILLISECONDS);

        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        assertThat(answer.bodyText()).isEqualTo("{\"slow\":true}");
        assertThat(serverThreads()).as("threads of the HTTP server after close").isEmpty();
        assertThatThrownBy(() -> RawHttp.request("GET", "/containers").send(port)).isInstanceOf(IOException.class);
    }

    private static List<String> serverThreads() throws InterruptedException {
        // Netty's event loops end just after their termination future completes: wait for them.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        List<String> names;
        do {
            names = Thread.getAllStackTraces().keySet().stream()
                    .filter(Thread::isAlive)
                    .map(Thread::getName)
                    .filter(name -> name.startsWith("docmirror-store-http"))
                    .toList();
            if (!names.isEmpty()) {
                Thread.sleep(10);
            }
        } while (!names.isEmpty() && System.nanoTime() < deadline);
        return names;
    }

    private Socket connect() throws IOException {
        return connectFrom(InetAddress.getLoopbackAddress());
    }

    private Socket connectFrom(InetAddress source) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port(), source, 0);
        socket.setSoTimeout(WAIT_MS);
        sockets.add(socket);
        return socket;
    }

    private static void write(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Everything the server sends until it closes the connection (a read timeout fails the test). */
    private static String readUntilClosed(Socket socket) throws IOException {
        try {
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        catch (SocketTimeoutException e) {
            throw new AssertionError("The server did not close the connection within " + WAIT_MS + " ms", e);
        }
        catch (IOException e) {
            // A connection reset after the server closed with our bytes unread: closed all the same.
            return "";
        }
    }

    /** A response's head, leaving the connection open. */
    private static String readHead(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int length = Integer.parseInt(text.replaceAll("(?s).*[Cc]ontent-[Ll]ength: (\\d+).*", "$1"));
        in.readNBytes(length);
        return text;
    }
}
