package io.docmirror.store.server.docmirror;

import io.docmirror.store.SnapshotInterval;
import io.docmirror.store.SnapshotPage;
import io.docmirror.store.SnapshotReader;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.http.WireFormat;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.PageSize;
import io.docmirror.store.server.Router;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The routes of snapshots the server holds for its clients (docs/http-api.md, "Snapshots"): a driver creates one,
 * many readers split its log partitions and read the intervals by its id, and the driver releases it.
 * <pre>
 * POST   /containers/{c}/snapshots?leaseMs=N
 * GET    /containers/{c}/snapshots/{id}
 * DELETE /containers/{c}/snapshots/{id}
 * GET    /containers/{c}/snapshots/{id}/partitions/{logPartition}/intervals?maxIntervals=N
 * GET    /containers/{c}/snapshots/{id}/partitions/{logPartition}/items?from=&amp;until=&amp;continuation=&amp;maxItems=
 * </pre>
 */
final class SnapshotEndpoints {
    private static final String SNAPSHOTS = "/containers/{container}/snapshots";
    private static final String SNAPSHOT = SNAPSHOTS + "/{snapshot}";
    private static final String PARTITION = SNAPSHOT + "/partitions/{logPartition}";

    private final HeldSnapshots snapshots;
    private final int maxPageItems;

    SnapshotEndpoints(HeldSnapshots snapshots, int maxPageItems) {
        this.snapshots = requireNonNull(snapshots, "snapshots is null");
        this.maxPageItems = maxPageItems;
    }

    void addTo(Router.Builder router) {
        router.add("POST", SNAPSHOTS, this::create)
                .add("GET", SNAPSHOT, this::describe)
                .add("DELETE", SNAPSHOT, this::release)
                .add("GET", PARTITION + "/intervals", this::split)
                .add("GET", PARTITION + "/items", this::read);
    }

    private ApiResponse create(ApiRequest request, Map<String, String> path) {
        Duration lease = request.queryParameter("leaseMs").map(SnapshotEndpoints::lease).orElse(snapshots.maxLease());
        return ApiResponse.json(201, description(snapshots.open(path.get("container"), lease)));
    }

    private ApiResponse describe(ApiRequest request, Map<String, String> path) {
        return ApiResponse.json(200, description(snapshots.renew(path.get("container"), path.get("snapshot"))));
    }

    private ApiResponse release(ApiRequest request, Map<String, String> path) {
        snapshots.release(path.get("container"), path.get("snapshot"));
        return ApiResponse.empty(204);
    }

    private ApiResponse split(ApiRequest request, Map<String, String> path) {
        HeldSnapshots.Lease lease = snapshots.renew(path.get("container"), path.get("snapshot"));
        int logPartition = logPartition(path);
        int maxIntervals = request.queryParameter("maxIntervals")
                .map(asked -> PageSize.capped(asked, "maxIntervals", SnapshotReader.MAX_SPLIT_INTERVALS)).orElse(1);
        List<SnapshotInterval> intervals = lease.snapshot().split(logPartition, maxIntervals);
        return ApiResponse.json(200, WireFormat.write(generator -> {
            generator.writeStartObject();
            generator.writeNumberField("logPartition", logPartition);
            generator.writeArrayFieldStart("intervals");
            for (SnapshotInterval interval : intervals) {
                generator.writeStartObject();
                generator.writeStringField("from", interval.from().orElse(null));
                generator.writeStringField("until", interval.until().orElse(null));
                generator.writeEndObject();
            }
            generator.writeEndArray();
            generator.writeEndObject();
        }));
    }

    private ApiResponse read(ApiRequest request, Map<String, String> path) {
        HeldSnapshots.Lease lease = snapshots.renew(path.get("container"), path.get("snapshot"));
        SnapshotInterval interval = SnapshotInterval.of(logPartition(path), request.queryParameter("from"),
                request.queryParameter("until"));
        int maxItems = request.queryParameter("maxItems")
                .map(asked -> PageSize.capped(asked, "maxItems", maxPageItems)).orElse(maxPageItems);
        SnapshotPage page = lease.snapshot().read(interval, request.queryParameter("continuation"), maxItems);
        return ApiResponse.json(200, WireFormat.snapshotPage(page, lease.expiresAt()));
    }

    /** {@code {"id":"...","container":"orders","lsns":[12,0,7],"leaseMs":600000,"expiresAt":"2026-..."}} */
    private static byte[] description(HeldSnapshots.Lease lease) {
        return WireFormat.write(generator -> {
            generator.writeStartObject();
            generator.writeStringField("id", lease.id());
            generator.writeStringField("container", lease.snapshot().container());
            generator.writeArrayFieldStart("lsns");
            for (int logPartition = 0; logPartition < lease.snapshot().logPartitions(); logPartition++) {
                generator.writeNumber(lease.snapshot().lsn(logPartition));
            }
            generator.writeEndArray();
            generator.writeNumberField("leaseMs", lease.duration().toMillis());
            generator.writeStringField("expiresAt", lease.expiresAt().toString());
            generator.writeEndObject();
        });
    }

    private static int logPartition(Map<String, String> path) {
        String text = path.get("logPartition");
        if (!text.matches("[0-9]{1,5}")) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid log partition '" + text
                    + "': a log partition is a number from 0 to the container's log partitions less one");
        }
        return Integer.parseInt(text);
    }

    private static Duration lease(String text) {
        if (!text.matches("[0-9]{1,12}") || Long.parseLong(text) < 1) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid leaseMs '" + text
                    + "': a lease is a whole number of milliseconds, at least 1");
        }
        return Duration.ofMillis(Long.parseLong(text));
    }
}
