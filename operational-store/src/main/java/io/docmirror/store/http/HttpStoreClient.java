package io.docmirror.store.http;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BatchResult;
import io.docmirror.store.BulkOperation;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreSnapshot;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.Precondition;
import io.docmirror.store.SnapshotSource;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.Upserted;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.ChangeEventJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * A {@link StoreClient} that talks to the store's HTTP server ({@code StoreHttpServer}, module store-server). Failures come back as the same
 * {@link StoreException}s, with the server's status and message; an unreachable server is
 * {@link StoreErrorCode#UNAVAILABLE} (retriable).
 *
 * <p>Snapshots the server holds ({@link RemoteSnapshot}) let a backfill read a remote store: a driver creates one
 * ({@link #createSnapshot}), its tasks in other processes open it by id ({@link #snapshotReader}) and read intervals
 * of its log partitions in parallel.
 */
public final class HttpStoreClient implements StoreClient {
    /**
     * How many levels a response wraps a document in at most: a batch result ({@code {"results":[{"item":
     * {"document":…}}]}}) and a change log page ({@code {"events":[{"document":…}]}}). A document at the store's
     * nesting limit is valid, so its response must parse although it nests deeper than the limit.
     */
    private static final int MAX_ENVELOPE_LEVELS = 4;
    /** The store's JSON settings, with room for the envelopes around a document at the nesting limit. */
    private static final ObjectMapper RESPONSES = StoreJson.mapper().copy();

    static {
        StreamReadConstraints documents = RESPONSES.getFactory().streamReadConstraints();
        RESPONSES.getFactory().setStreamReadConstraints(documents.rebuild()
                .maxNestingDepth(documents.getMaxNestingDepth() + MAX_ENVELOPE_LEVELS)
                .build());
    }

    private final URI base;
    private final Optional<String> key;
    private final HttpClient http;
    /** Renews the leases of the snapshots this client created; started with the first. Guarded by {@code this}. */
    private ScheduledExecutorService renewer;

    /**
     * @param baseUri e.g. {@code http://127.0.0.1:8081}
     * @param key the key to send as {@code Authorization: Bearer <key>}, if the server requires one
     */
    public HttpStoreClient(String baseUri, Optional<String> key) {
        this.base = URI.create(requireNonNull(baseUri, "baseUri is null").replaceAll("/+$", ""));
        this.key = requireNonNull(key, "key is null");
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public ContainerProperties createContainer(ContainerProperties properties) {
        return readValue(send("POST", "/containers", json(properties), Map.of()).body(), ContainerProperties.class);
    }

    @Override
    public ContainerProperties readContainer(String container) {
        return readValue(send("GET", containerPath(container), null, Map.of()).body(), ContainerProperties.class);
    }

    @Override
    public List<ContainerProperties> listContainers() {
        JsonNode node = parse(send("GET", "/containers", null, Map.of()).body());
        return RESPONSES.convertValue(node.get("containers"), new TypeReference<List<ContainerProperties>>() { });
    }

    @Override
    public ContainerProperties replaceContainer(String container, ContainerProperties properties,
            Precondition precondition) {
        return readValue(send("PUT", containerPath(container), json(properties),
                headers(null, precondition, Map.of())).body(), ContainerProperties.class);
    }

    @Override
    public void deleteContainer(String container) {
        send("DELETE", containerPath(container), null, Map.of());
    }

    @Override
    public Item createItem(String container, byte[] json, Optional<PartitionKey> statedPartitionKey) {
        return item(send("POST", containerPath(container) + "/items", json,
                headers(statedPartitionKey.orElse(null), Precondition.NONE, Map.of())));
    }

    @Override
    public Upserted upsert(String container, byte[] json, Precondition precondition,
            Optional<PartitionKey> statedPartitionKey) {
        HttpResponse<byte[]> response = send("POST", containerPath(container) + "/items", json,
                headers(statedPartitionKey.orElse(null), precondition, Map.of(WireFormat.UPSERT_HEADER, "true")));
        return new Upserted(item(response), response.statusCode() == 201);
    }

    @Override
    public Item replaceItem(String container, PartitionKey partitionKey, String id, byte[] json,
            Precondition precondition) {
        return item(send("PUT", itemPath(container, id), json, headers(partitionKey, precondition, Map.of())));
    }

    @Override
    public Item patchItem(String container, PartitionKey partitionKey, String id, List<PatchOperation> operations,
            Precondition precondition) {
        return item(send("PATCH", itemPath(container, id), json(Map.of("operations", operations)),
                headers(partitionKey, precondition, Map.of())));
    }

    @Override
    public void deleteItem(String container, PartitionKey partitionKey, String id, Precondition precondition) {
        send("DELETE", itemPath(container, id), null, headers(partitionKey, precondition, Map.of()));
    }

    @Override
    public Optional<Item> findItem(String container, PartitionKey partitionKey, String id) {
        try {
            return Optional.of(item(send("GET", itemPath(container, id), null,
                    headers(partitionKey, Precondition.NONE, Map.of()))));
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.NOT_FOUND && e.getMessage().startsWith("Cannot read item")) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public List<Item> readPartition(String container, PartitionKey partitionKey) {
        JsonNode node = parse(send("GET", containerPath(container) + "/items", null,
                headers(partitionKey, Precondition.NONE, Map.of())).body());
        return WireFormat.readItems(node.get("items"));
    }

    @Override
    public ItemPage scanItems(String container, int logPartition, Optional<String> continuation, int maxItems) {
        String query = "?maxItems=" + maxItems + continuation.map(token -> "&continuation=" + encode(token)).orElse("");
        JsonNode node = parse(send("GET", containerPath(container) + "/scan/" + logPartition + query, null, Map.of()).body());
        return new ItemPage(WireFormat.readItems(node.get("items")),
                node.hasNonNull("continuation") ? Optional.of(node.get("continuation").asText()) : Optional.empty(),
                node.get("logEndLsn").asLong());
    }

    @Override
    public BatchResult executeBatch(String container, PartitionKey partitionKey, List<BatchOperation> operations) {
        HttpResponse<byte[]> response = send("POST", containerPath(container) + "/batch",
                json(Map.of("operations", operations)), headers(partitionKey, Precondition.NONE, Map.of()), true);
        JsonNode node = parse(response.body());
        if (!node.has("results")) {
            throw error(response);
        }
        return new BatchResult(WireFormat.readOperationResults(node));
    }

    @Override
    public List<BatchResult.OperationResult> executeBulk(String container, List<BulkOperation> operations) {
        HttpResponse<byte[]> response = send("POST", containerPath(container) + "/bulk/operations",
                WireFormat.bulkOperations(operations), Map.of());
        return WireFormat.readOperationResults(parse(response.body()));
    }

    @Override
    public BulkResult bulkWrite(String container, List<byte[]> documents, BulkOptions options) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] document : documents) {
            for (byte b : document) {
                if (b == '\n' || b == '\r') {
                    throw new StoreException(StoreErrorCode.BAD_REQUEST,
                            "Cannot send a bulk write: a document holds a raw line break, which splits NDJSON lines");
                }
            }
            body.writeBytes(document);
            body.write('\n');
        }
        return readValue(send("POST", containerPath(container) + "/bulk?upsert=" + options.upsert()
                + "&stopAtFirstFailure=" + options.stopAtFirstFailure(), body.toByteArray(), Map.of())
                .body(), BulkResult.class);
    }

    @Override
    public ChangeLogPage readChangeLog(String container, int logPartition, long afterLsn, int maxEvents) {
        JsonNode node = parse(send("GET", containerPath(container) + "/changelog/" + logPartition + "?after=" + afterLsn
                + "&maxEvents=" + maxEvents, null, Map.of()).body());
        List<ChangeEvent> events = new ArrayList<>();
        node.get("events").forEach(event -> events.add(ChangeEventJson.fromTree(event)));
        return new ChangeLogPage(node.get("logPartition").asInt(), events, node.get("logStartLsn").asLong(),
                node.get("logEndLsn").asLong());
    }

    // Snapshots

    /**
     * Creates a snapshot of the container that the server holds for its lease (the server's longest, renewed by each
     * read) until it is closed: a backfill's driver creates it and hands {@link RemoteSnapshot#id()} to its tasks.
     *
     * @throws StoreException 404 for an unknown container; {@link StoreErrorCode#UNAVAILABLE} (the server's 429) when
     *         the server holds as many snapshots as it may
     */
    public RemoteSnapshot createSnapshot(String container) {
        return keptAlive(RemoteSnapshot.described(this, RESPONSES.getFactory(),
                parse(send("POST", containerPath(container) + "/snapshots", null, Map.of()).body())));
    }

    /**
     * Creates a snapshot held for at most {@code lease} after its last renewal (the server may shorten it).
     *
     * @throws StoreException as {@link #createSnapshot(String)}
     */
    public RemoteSnapshot createSnapshot(String container, Duration lease) {
        return keptAlive(RemoteSnapshot.described(this, RESPONSES.getFactory(), parse(send("POST",
                containerPath(container) + "/snapshots?leaseMs=" + Math.max(1, lease.toMillis()), null, Map.of())
                .body())));
    }

    /**
     * Renews a created snapshot's lease three times a lease until it is closed: readers may pause for longer than a
     * lease (a backfill's reader waits while the ranges before its own are written), and the snapshot lives as long
     * as its creator holds it open. Should the creator die, the server releases it one lease later.
     */
    private RemoteSnapshot keptAlive(RemoteSnapshot snapshot) {
        long period = Math.max(1, snapshot.lease().toMillis() / 3);
        ScheduledFuture<?> renewals;
        synchronized (this) {
            if (renewer == null) {
                renewer = Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "docmirror-snapshot-renewals");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            renewals = renewer.scheduleWithFixedDelay(snapshot::renewWhileHeld, period, period,
                    TimeUnit.MILLISECONDS);
        }
        snapshot.renewedUntilClosed(renewals);
        return snapshot;
    }

    /**
     * Opens a snapshot another client created, by its id, to read it (renewing its lease); nothing is created.
     * Closing it releases the snapshot for every reader: a task leaves that to the driver.
     *
     * @throws StoreException 404 when there is no such snapshot (released, or its lease expired), 400 for a malformed
     *         id
     */
    public RemoteSnapshot snapshotReader(String container, String snapshotId) {
        return RemoteSnapshot.described(this, RESPONSES.getFactory(),
                getJson(containerPath(container) + "/snapshots/" + encode(snapshotId)));
    }

    /**
     * This client as a {@link SnapshotSource}: each snapshot it opens is created on the server and released when it
     * is closed, so a backfill can read a store in another process.
     */
    public SnapshotSource asSnapshotSource() {
        return new SnapshotSource() {
            @Override
            public ContainerProperties readContainer(String container) {
                return HttpStoreClient.this.readContainer(container);
            }

            @Override
            public StoreSnapshot openSnapshot(String container) {
                return createSnapshot(container);
            }
        };
    }

    JsonNode getJson(String path) {
        return parse(getBytes(path));
    }

    byte[] getBytes(String path) {
        return send("GET", path, null, Map.of()).body();
    }

    void delete(String path) {
        send("DELETE", path, null, Map.of());
    }

    /** Stops renewing the snapshots this client created (the server releases them once their leases expire). */
    @Override
    public void close() {
        synchronized (this) {
            if (renewer != null) {
                renewer.shutdownNow();
            }
        }
        // Java 17's HttpClient has no close(): its connections end when it is garbage collected.
    }

    private HttpResponse<byte[]> send(String method, String path, byte[] body, Map<String, String> headers) {
        return send(method, path, body, headers, false);
    }

    private HttpResponse<byte[]> send(String method, String path, byte[] body, Map<String, String> headers,
            boolean errorBodyIsResult) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        key.ifPresent(value -> request.header("Authorization", "Bearer " + value));
        headers.forEach(request::header);
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot reach the store at " + base + ": "
                    + reason(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Interrupted while calling the store at " + base, e);
        }
        if (response.statusCode() >= 300 && !errorBodyIsResult) {
            throw error(response);
        }
        return response;
    }

    /** Why a call did not reach the store, for a user: a refused connection comes without a message. */
    private static String reason(IOException e) {
        if (e.getMessage() != null) {
            return e.getMessage();
        }
        return e instanceof ConnectException ? "the connection was refused (is the store serving there?)"
                : e.getClass().getSimpleName();
    }

    private static StoreException error(HttpResponse<byte[]> response) {
        String message;
        try {
            JsonNode node = RESPONSES.readTree(response.body());
            message = node != null && node.hasNonNull("message") ? node.get("message").asText()
                    : new String(response.body(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            message = new String(response.body(), StandardCharsets.UTF_8);
        }
        // A 429 (this address sent too many wrong keys) passes with time: retriable, as the store's own 503 is.
        StoreErrorCode code = response.statusCode() == 429
                ? StoreErrorCode.UNAVAILABLE : StoreErrorCode.fromHttpStatus(response.statusCode());
        return new StoreException(code, message);
    }

    private static Map<String, String> headers(PartitionKey partitionKey, Precondition precondition,
            Map<String, String> extra) {
        Map<String, String> headers = new java.util.HashMap<>(extra);
        if (partitionKey != null) {
            headers.put(WireFormat.PARTITION_KEY_HEADER, partitionKey.toWire());
        }
        precondition.ifMatchEtag().ifPresent(etag -> headers.put("If-Match", etag));
        return headers;
    }

    private static Item item(HttpResponse<byte[]> response) {
        String json = new String(response.body(), StandardCharsets.UTF_8);
        // The server sends the key as ASCII JSON with \\u escapes; should a server send raw UTF-8 instead, the
        // header's characters are its bytes (ISO-8859-1), which are read back as the UTF-8 they are.
        String partitionKey = new String(response.headers().firstValue(WireFormat.PARTITION_KEY_HEADER).orElseThrow()
                .getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        JsonNode tree = parse(response.body());
        return new Item(tree.get("id").asText(), PartitionKey.fromWire(partitionKey),
                response.headers().firstValue("ETag").orElseThrow(),
                Long.parseLong(response.headers().firstValue(WireFormat.LSN_HEADER).orElseThrow()), json);
    }

    static String containerPath(String container) {
        return "/containers/" + encode(container);
    }

    private static String itemPath(String container, String id) {
        return containerPath(container) + "/items/" + encode(id);
    }

    static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static byte[] json(Object value) {
        try {
            return StoreJson.mapper().writeValueAsBytes(value);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot encode request: " + e.getMessage(), e);
        }
    }

    private static JsonNode parse(byte[] body) {
        try {
            return RESPONSES.readTree(body);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "The store sent a response that is not JSON", e);
        }
    }

    private static <T> T readValue(byte[] body, Class<T> type) {
        try {
            return RESPONSES.readValue(body, type);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR,
                    "The store sent a response that is not a " + type.getSimpleName(), e);
        }
    }
}
