package io.docmirror.store.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;

/**
 * An item's RocksDB value: a fixed header the store reads without parsing JSON, then the item's JSON.
 * <pre>[format:1][lsn:8][_ts seconds:8][created at lsn:8][ttl:4, 0 = none][item JSON]</pre>
 *
 * @param lsn the LSN of the item's last write
 * @param createdLsn the LSN of the write that created it; with the container and log partition it makes the
 *        item's {@code _rid}, which stays the same across updates as in Cosmos DB
 * @param ttl the item's own ttl in seconds, or null
 */
public record StoredItem(long lsn, long tsSeconds, long createdLsn, Integer ttl, byte[] json) {
    private static final byte FORMAT = 1;
    private static final int HEADER_BYTES = 29;

    public byte[] encode() {
        return ByteBuffer.allocate(HEADER_BYTES + json.length)
                .put(FORMAT).putLong(lsn).putLong(tsSeconds).putLong(createdLsn).putInt(ttl == null ? 0 : ttl)
                .put(json).array();
    }

    public static StoredItem decode(byte[] value) {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        byte format = buffer.get();
        if (format != FORMAT) {
            throw new IllegalStateException("stored item has unknown format " + format);
        }
        long lsn = buffer.getLong();
        long ts = buffer.getLong();
        long created = buffer.getLong();
        int ttl = buffer.getInt();
        return new StoredItem(lsn, ts, created, ttl == 0 ? null : ttl, Arrays.copyOfRange(value, HEADER_BYTES, value.length));
    }

    public static String etag(int containerId, int logPartition, long lsn) {
        return "\"" + Integer.toHexString(containerId) + "-" + Integer.toHexString(logPartition) + "-"
                + Long.toHexString(lsn) + "\"";
    }

    public static String rid(int containerId, int logPartition, long createdLsn) {
        byte[] bytes = ByteBuffer.allocate(14).putInt(containerId).putShort((short) logPartition).putLong(createdLsn).array();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The LSN that created the item whose {@code _rid} this is ({@link #rid}): unique within its log partition.
     *
     * @throws IllegalArgumentException when the text is not a rid the store gave
     */
    public static long createdLsnOfRid(String rid) {
        byte[] bytes = Base64.getUrlDecoder().decode(rid);
        if (bytes.length != 14) {
            throw new IllegalArgumentException("Not an item's _rid: " + rid);
        }
        return ByteBuffer.wrap(bytes, 6, 8).getLong();
    }
}
