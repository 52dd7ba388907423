package io.docmirror.store.server.cosmos;

import io.docmirror.store.EffectivePartitionKey;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.PageSize;

import java.util.Optional;

/**
 * The headers with which the SDKs read a feed (the change feed, a query's pages) one part of a container at a time:
 * the partition key range ({@code x-ms-documentdb-partitionkeyrangeid}), narrowed by effective partition keys
 * ({@code x-ms-start-epk}, {@code x-ms-end-epk}), and the page size ({@code x-ms-max-item-count}), each refused with
 * 400 naming the header when malformed.
 */
final class CosmosFeedHeaders {
    static final String RANGE = "x-ms-documentdb-partitionkeyrangeid";
    private static final String MAX_ITEMS = "x-ms-max-item-count";
    private static final String START_EPK = "x-ms-start-epk";
    private static final String END_EPK = "x-ms-end-epk";

    private CosmosFeedHeaders() {
    }

    /** The partition key range (log partition) asked for, if any; the SDKs write {@code <collection rid>,<range>}. */
    static Optional<Integer> range(ApiRequest request, CosmosContainers.Resolved container) {
        Optional<String> header = request.header(RANGE);
        if (header.isEmpty()) {
            return Optional.empty();
        }
        int ranges = container.properties().logPartitions();
        String id = header.get().substring(header.get().lastIndexOf(',') + 1);
        if (!id.matches("[0-9]{1,4}") || Integer.parseInt(id) >= ranges) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header " + RANGE + " '" + header.get()
                    + "': container " + container.properties().id() + " has partition key ranges 0 to "
                    + (ranges - 1));
        }
        return Optional.of(Integer.parseInt(id));
    }

    /** The page size asked for, at most {@code cap}; {@code cap} when none or -1 is asked for. */
    static int maxItems(ApiRequest request, int cap) {
        Optional<String> header = request.header(MAX_ITEMS);
        if (header.isEmpty() || header.get().equals("-1")) {
            return cap;
        }
        return PageSize.capped(header.get(), "header " + MAX_ITEMS, cap);
    }

    /** Whether a partition key's effective partition key lies in the range the EPK headers name (all when none). */
    static boolean inEpkRange(ApiRequest request, PartitionKey key) {
        Optional<String> start = request.header(START_EPK);
        Optional<String> end = request.header(END_EPK);
        if (start.isEmpty() && end.isEmpty()) {
            return true;
        }
        String epk = EffectivePartitionKey.of(key).toHex();
        return epk.compareTo(start.orElse("")) >= 0 && (end.isEmpty() || epk.compareTo(end.get()) < 0);
    }
}
