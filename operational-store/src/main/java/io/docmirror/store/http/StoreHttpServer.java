package io.docmirror.store.http;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BatchResult;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEventJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The store's HTTP API (docs/http-api.md) over any {@link StoreClient}. JSON in and out; errors are
 * {@code {"code":..., "status":..., "message":...}} with the status Cosmos DB would give.
 *
 * <p>It listens on loopback unless configured otherwise; any other address requires a primary key, which clients
 * send as {@code Authorization: Bearer <key>}. A read-only key allows GET only. Keys are never logged.
 */
public final class StoreHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StoreHttpServer.class);
    private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

    static {
        // The JDK server leaves Nagle's algorithm on, which delays each small response by up to 40 ms on a
        // kept-alive connection. The property is read once, when the JDK server's configuration loads.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final StoreClient store;
    private final StoreConfig config;
    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, ContainerRoute> containerRoutes;

    private StoreHttpServer(StoreClient store, StoreConfig config, HttpServer server, ExecutorService executor,
            Map<String, ContainerRoute> containerRoutes) {
        this.store = store;
        this.config = config;
        this.server = server;
        this.executor = executor;
        this.containerRoutes = Map.copyOf(containerRoutes);
    }

    /**
     * Starts serving {@code store} on the configured address and port (port 0 picks a free one).
     *
     * @throws IllegalArgumentException when the address is not loopback and no primary key is configured
     */
    public static StoreHttpServer start(StoreClient store, StoreConfig config) throws IOException {
        return start(store, config, Map.of());
    }

    /**
     * Starts serving {@code store} and, below {@code /containers/{c}/<name>}, the given extra routes.
     *
     * @throws IllegalArgumentException when the address is not loopback and no primary key is configured
     */
    public static StoreHttpServer start(StoreClient store, StoreConfig config, Map<String, ContainerRoute> containerRoutes)
            throws IOException {
        requireNonNull(store, "store is null");
        InetAddress address = InetAddress.getByName(config.httpBind());
        if (!address.isLoopbackAddress() && config.primaryKey().isEmpty()) {
            throw new IllegalArgumentException("Invalid value " + config.httpBind() + " for configuration store.http.bind: "
                    + "listening on an address other than loopback requires store.http.primary-key");
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(address, config.httpPort()), 256);
        ExecutorService executor = Executors.newFixedThreadPool(config.httpThreads(), runnable -> {
            Thread thread = new Thread(runnable, "docmirror-store-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        StoreHttpServer httpServer = new StoreHttpServer(store, config, server, executor, containerRoutes);
        server.createContext("/", httpServer::handle);
        server.start();
        log.info("Store HTTP API listening on http://{}:{}/ ({})", config.httpBind(), httpServer.port(),
                config.primaryKey().isPresent() ? "keys required" : "no keys, loopback only");
        return httpServer;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public String baseUri() {
        return "http://" + server.getAddress().getHostString() + ":" + port();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            try {
                authorize(exchange);
                route(exchange);
            }
            catch (StoreException e) {
                respondError(exchange, e.httpStatus(), e.code().name(), e.getMessage());
            }
            catch (IllegalArgumentException e) {
                respondError(exchange, 400, StoreErrorCode.BAD_REQUEST.name(), e.getMessage());
            }
            catch (RuntimeException e) {
                log.error("Request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), e);
                respondError(exchange, 500, StoreErrorCode.INTERNAL_ERROR.name(),
                        "Internal error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    private void authorize(HttpExchange exchange) {
        if (config.primaryKey().isEmpty()) {
            return;
        }
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        String presented = header != null && header.startsWith("Bearer ") ? header.substring(7) : null;
        if (presented != null && constantTimeEquals(presented, config.primaryKey().get())) {
            return;
        }
        if (presented != null && config.readOnlyKey().isPresent()
                && constantTimeEquals(presented, config.readOnlyKey().get())) {
            if (exchange.getRequestMethod().equals("GET")) {
                return;
            }
            throw new StoreException(StoreErrorCode.FORBIDDEN,
                    "The read-only key cannot " + exchange.getRequestMethod() + "; use the primary key");
        }
        throw new StoreException(StoreErrorCode.UNAUTHORIZED, presented == null
                ? "Missing 'Authorization: Bearer <key>' header" : "The key in the Authorization header is not valid");
    }

    private static boolean constantTimeEquals(String presented, String expected) {
        return MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }

    private void route(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        List<String> path = segments(exchange.getRequestURI().getRawPath());
        if (path.isEmpty() || !path.get(0).equals("containers")) {
            throw notFound(exchange);
        }
        if (path.size() == 1) {
            switch (method) {
                case "GET" -> respondJson(exchange, 200, StoreJson.mapper().writeValueAsBytes(
                        Map.of("containers", store.listContainers())));
                case "POST" -> {
                    ContainerProperties properties = readContainerProperties(readBody(exchange));
                    respondJson(exchange, 201, StoreJson.mapper().writeValueAsBytes(store.createContainer(properties)));
                }
                default -> throw methodNotAllowed(exchange);
            }
            return;
        }
        String container = path.get(1);
        if (path.size() == 2) {
            switch (method) {
                case "GET" -> respondJson(exchange, 200, StoreJson.mapper().writeValueAsBytes(store.readContainer(container)));
                case "DELETE" -> {
                    store.deleteContainer(container);
                    respond(exchange, 204, null);
                }
                default -> throw methodNotAllowed(exchange);
            }
            return;
        }
        String resource = path.get(2);
        switch (resource) {
            case "items" -> {
                if (path.size() == 3) {
                    items(exchange, container);
                }
                else if (path.size() == 4) {
                    item(exchange, container, path.get(3));
                }
                else {
                    throw notFound(exchange);
                }
            }
            case "batch" -> {
                requireMethod(exchange, "POST", path.size() == 3);
                JsonNode body = parse(readBody(exchange));
                List<BatchOperation> operations = StoreJson.mapper().convertValue(body.path("operations"),
                        new TypeReference<List<BatchOperation>>() { });
                BatchResult result = store.executeBatch(container, partitionKey(exchange, true), operations);
                respondJson(exchange, result.status(), WireFormat.operationResults(result.results()));
            }
            case "bulk" -> {
                if (path.size() == 4 && path.get(3).equals("operations")) {
                    requireMethod(exchange, "POST", true);
                    List<BatchResult.OperationResult> results = store.executeBulk(container,
                            WireFormat.readBulkOperations(parse(readBody(exchange))));
                    respondJson(exchange, 200, WireFormat.operationResults(results));
                    return;
                }
                requireMethod(exchange, "POST", path.size() == 3);
                Map<String, String> query = query(exchange);
                BulkResult result = store.bulkWrite(container, splitLines(readBody(exchange)), new BulkOptions(
                        "true".equals(query.get("upsert")), "true".equals(query.get("stopAtFirstFailure"))));
                respondJson(exchange, 200, StoreJson.mapper().writeValueAsBytes(result));
            }
            case "scan" -> {
                requireMethod(exchange, "GET", path.size() == 4);
                Map<String, String> query = query(exchange);
                ItemPage page = store.scanItems(container, parseInt(path.get(3), "log partition"),
                        Optional.ofNullable(query.get("continuation")),
                        parseInt(query.getOrDefault("maxItems", "1000"), "maxItems"));
                respondJson(exchange, 200, WireFormat.items("items", page.items(), generator -> {
                    generator.writeStringField("continuation", page.continuation().orElse(null));
                    generator.writeNumberField("logEndLsn", page.logEndLsn());
                }));
            }
            case "changelog" -> {
                requireMethod(exchange, "GET", path.size() == 4);
                Map<String, String> query = query(exchange);
                ChangeLogPage page = store.readChangeLog(container, parseInt(path.get(3), "log partition"),
                        Long.parseLong(query.getOrDefault("after", "0")),
                        parseInt(query.getOrDefault("maxEvents", "1000"), "maxEvents"));
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes(("{\"logPartition\":" + page.logPartition() + ",\"logStartLsn\":" + page.logStartLsn()
                        + ",\"logEndLsn\":" + page.logEndLsn()
                        + ",\"events\":[").getBytes(StandardCharsets.UTF_8));
                for (int index = 0; index < page.events().size(); index++) {
                    if (index > 0) {
                        out.write(',');
                    }
                    out.writeBytes(ChangeEventJson.toJson(page.events().get(index)));
                }
                out.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
                respondJson(exchange, 200, out.toByteArray());
            }
            default -> {
                ContainerRoute extra = containerRoutes.get(path.get(2));
                if (extra == null) {
                    throw notFound(exchange);
                }
                requireMethod(exchange, "GET", path.size() == 3);
                respondJson(exchange, 200, extra.get(container, query(exchange)));
            }
        }
    }

    private void items(HttpExchange exchange, String container) throws IOException {
        switch (exchange.getRequestMethod()) {
            case "POST" -> {
                byte[] body = readBody(exchange);
                boolean upsert = "true".equalsIgnoreCase(exchange.getRequestHeaders().getFirst(WireFormat.UPSERT_HEADER));
                Item item = upsert
                        ? store.upsertItem(container, body, precondition(exchange))
                        : store.createItem(container, body);
                respondItem(exchange, upsert ? 200 : 201, item);
            }
            case "GET" -> {
                List<Item> items = store.readPartition(container, partitionKey(exchange, true));
                respondJson(exchange, 200, WireFormat.items("items", items, WireFormat.Extra.NONE));
            }
            default -> throw methodNotAllowed(exchange);
        }
    }

    private void item(HttpExchange exchange, String container, String id) throws IOException {
        PartitionKey partitionKey = partitionKey(exchange, true);
        switch (exchange.getRequestMethod()) {
            case "GET" -> respondItem(exchange, 200, store.readItem(container, partitionKey, id));
            case "PUT" -> respondItem(exchange, 200,
                    store.replaceItem(container, partitionKey, id, readBody(exchange), precondition(exchange)));
            case "PATCH" -> {
                JsonNode body = parse(readBody(exchange));
                List<PatchOperation> operations = StoreJson.mapper().convertValue(body.path("operations"),
                        new TypeReference<List<PatchOperation>>() { });
                respondItem(exchange, 200, store.patchItem(container, partitionKey, id,
                        operations == null ? List.of() : operations, precondition(exchange)));
            }
            case "DELETE" -> {
                store.deleteItem(container, partitionKey, id, precondition(exchange));
                respond(exchange, 204, null);
            }
            default -> throw methodNotAllowed(exchange);
        }
    }

    private static ContainerProperties readContainerProperties(byte[] body) {
        JsonNode node = parse(body);
        if (!node.hasNonNull("id") || !node.hasNonNull("partitionKeyPath")) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot create container: the body needs 'id' and 'partitionKeyPath'");
        }
        return new ContainerProperties(node.get("id").asText(), node.get("partitionKeyPath").asText(),
                node.hasNonNull("defaultTtl") ? node.get("defaultTtl").asInt() : null,
                node.hasNonNull("analyticalTtl") ? node.get("analyticalTtl").asInt() : null,
                node.path("logPartitions").asInt(ContainerProperties.DEFAULT_LOG_PARTITIONS));
    }

    private static PartitionKey partitionKey(HttpExchange exchange, boolean required) {
        String header = exchange.getRequestHeaders().getFirst(WireFormat.PARTITION_KEY_HEADER);
        if (header == null) {
            if (required) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Missing header " + WireFormat.PARTITION_KEY_HEADER
                        + ": the partition key value as a JSON array of one element, e.g. [\"c1\"] ([{}] for none)");
            }
            return null;
        }
        return PartitionKey.fromWire(header);
    }

    private static Precondition precondition(HttpExchange exchange) {
        return Precondition.ofNullable(exchange.getRequestHeaders().getFirst("If-Match"));
    }

    private static void respondItem(HttpExchange exchange, int status, Item item) throws IOException {
        exchange.getResponseHeaders().set("ETag", item.etag());
        exchange.getResponseHeaders().set(WireFormat.LSN_HEADER, Long.toString(item.lsn()));
        exchange.getResponseHeaders().set(WireFormat.PARTITION_KEY_HEADER, item.partitionKey().toWire());
        respondJson(exchange, status, item.jsonBytes());
    }

    private static void respondJson(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        respond(exchange, status, body);
    }

    private static void respondError(HttpExchange exchange, int status, String code, String message) throws IOException {
        respondJson(exchange, status, WireFormat.error(status, code, message));
    }

    private static void respond(HttpExchange exchange, int status, byte[] body) throws IOException {
        if (body == null) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw new StoreException(StoreErrorCode.TOO_LARGE,
                        "Request body is over the limit of " + MAX_BODY_BYTES + " bytes");
            }
            return body;
        }
    }

    private static JsonNode parse(byte[] body) {
        try {
            JsonNode node = StoreJson.mapper().readTree(body);
            if (node == null) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Request body is empty; a JSON object is needed");
            }
            return node;
        }
        catch (IOException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Request body is not valid JSON: " + e.getMessage(), e);
        }
    }

    private static List<byte[]> splitLines(byte[] body) {
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int index = 0; index <= body.length; index++) {
            if (index == body.length || body[index] == '\n') {
                int end = index > start && body[index - 1] == '\r' ? index - 1 : index;
                if (end > start) {
                    lines.add(java.util.Arrays.copyOfRange(body, start, end));
                }
                start = index + 1;
            }
        }
        return lines;
    }

    private static List<String> segments(String rawPath) {
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.split("/")) {
            if (!raw.isEmpty()) {
                segments.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return segments;
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> query = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null) {
            return query;
        }
        for (String pair : raw.split("&")) {
            int equals = pair.indexOf('=');
            String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
            query.put(key, value);
        }
        return query;
    }

    private static int parseInt(String text, String what) {
        try {
            return Integer.parseInt(text);
        }
        catch (NumberFormatException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid " + what + " '" + text + "': not an integer", e);
        }
    }

    private static void requireMethod(HttpExchange exchange, String method, boolean pathMatches) {
        if (!pathMatches) {
            throw notFound(exchange);
        }
        if (!exchange.getRequestMethod().equals(method)) {
            throw methodNotAllowed(exchange);
        }
    }

    private static StoreException notFound(HttpExchange exchange) {
        return new StoreException(StoreErrorCode.NOT_FOUND,
                "No such resource: " + exchange.getRequestURI().getRawPath() + " (see docs/http-api.md)");
    }

    private static StoreException methodNotAllowed(HttpExchange exchange) {
        return new StoreException(StoreErrorCode.BAD_REQUEST, "Method " + exchange.getRequestMethod()
                + " is not supported on " + exchange.getRequestURI().getRawPath() + " (see docs/http-api.md)");
    }
}
