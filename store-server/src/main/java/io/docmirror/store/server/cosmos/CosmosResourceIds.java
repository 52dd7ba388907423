package io.docmirror.store.server.cosmos;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Resource ids ({@code _rid}) in Cosmos DB's form, which the SDKs parse: base64 of big-endian bytes, with '/' written
 * as '-'. A database's is its 4-byte number; a container's is its database's followed by 4 bytes with the top bit
 * set (the mark of a container) and the store's internal number of the container; a document's is its container's
 * followed by an 8-byte document number.
 */
final class CosmosResourceIds {
    private static final int CONTAINER_MARK = 0x8000_0000;

    private CosmosResourceIds() {
    }

    static String database(int database) {
        return encode(ByteBuffer.allocate(4).putInt(database).array());
    }

    static String container(int database, int container) {
        return encode(ByteBuffer.allocate(8).putInt(database).putInt(CONTAINER_MARK | container).array());
    }

    /** A document's id in Cosmos DB's form, within a container whose id in that form is given. */
    static String document(String containerResourceId, long document) {
        byte[] container = Base64.getDecoder().decode(containerResourceId.replace('-', '/'));
        return encode(ByteBuffer.allocate(container.length + 8).put(container).putLong(document).array());
    }

    /** The database number of a database or container id; empty when the text is no such id. */
    static OptionalInt databaseOf(String resourceId) {
        return decode(resourceId)
                .filter(bytes -> bytes.length == 4 || bytes.length == 8)
                .map(bytes -> OptionalInt.of(ByteBuffer.wrap(bytes).getInt()))
                .orElse(OptionalInt.empty());
    }

    /** The container number of a container id; empty when the text is no such id. */
    static OptionalInt containerOf(String resourceId) {
        Optional<byte[]> bytes = decode(resourceId).filter(decoded -> decoded.length == 8);
        if (bytes.isEmpty()) {
            return OptionalInt.empty();
        }
        int marked = ByteBuffer.wrap(bytes.get(), 4, 4).getInt();
        return (marked & CONTAINER_MARK) == 0 ? OptionalInt.empty() : OptionalInt.of(marked & ~CONTAINER_MARK);
    }

    /**
     * Whether {@code names} are the resource ids of a resource and of those it lies in, outermost first: a database's
     * (4 bytes), then ids each of which begins with the one before it (a container's, a document's), as a path the
     * SDKs build from a {@code _self} link names them.
     */
    static boolean isChainOfIds(List<String> names) {
        byte[] outer = null;
        for (String name : names) {
            Optional<byte[]> id = decode(name);
            if (id.isEmpty()) {
                return false;
            }
            byte[] bytes = id.get();
            boolean within = outer == null ? bytes.length == 4
                    : bytes.length > outer.length && Arrays.equals(bytes, 0, outer.length, outer, 0, outer.length);
            if (!within) {
                return false;
            }
            outer = bytes;
        }
        return outer != null;
    }

    /** The store's own number of a container, from its {@code _rid} (URL-safe base64 of 4 bytes). */
    static int storeContainerNumber(String storeResourceId) {
        return ByteBuffer.wrap(Base64.getUrlDecoder().decode(storeResourceId)).getInt();
    }

    private static String encode(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes).replace('/', '-');
    }

    private static Optional<byte[]> decode(String resourceId) {
        try {
            return Optional.of(Base64.getDecoder().decode(resourceId.replace('-', '/')));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // not base64: a name, not an id
        }
    }
}
