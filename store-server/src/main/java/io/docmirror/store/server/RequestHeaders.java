package io.docmirror.store.server;

import io.docmirror.store.PartitionKey;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.http.WireFormat;

import java.util.Optional;

/**
 * The request headers both the store's own routes and the Cosmos DB routes read: the partition key, the
 * {@code If-Match} precondition and true/false flags, each refused with 400 naming the header when malformed.
 */
public final class RequestHeaders {
    private RequestHeaders() {
    }

    public static Optional<PartitionKey> partitionKey(ApiRequest request) {
        Optional<String> header = request.header(WireFormat.PARTITION_KEY_HEADER);
        if (header.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PartitionKey.fromWire(header.get()));
        } catch (IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header " + WireFormat.PARTITION_KEY_HEADER
                    + ": " + e.getMessage(), e);
        }
    }

    public static PartitionKey requiredPartitionKey(ApiRequest request) {
        return partitionKey(request).orElseThrow(() -> new StoreException(StoreErrorCode.BAD_REQUEST,
                "Missing header " + WireFormat.PARTITION_KEY_HEADER
                        + ": the partition key value as a JSON array of one element, e.g. [\"c1\"] ([{}] for none)"));
    }

    public static Precondition precondition(ApiRequest request) {
        return Precondition.ofNullable(request.header("If-Match").orElse(null));
    }

    /** A flag: absent or {@code false} is false, {@code true} is true, in any case ({@code True} from the SDKs). */
    public static boolean flag(ApiRequest request, String name) {
        Optional<String> value = request.header(name);
        if (value.isEmpty() || value.get().equalsIgnoreCase("false")) {
            return false;
        }
        if (value.get().equalsIgnoreCase("true")) {
            return true;
        }
        throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header " + name + " '" + value.get()
                + "': must be true or false");
    }
}
