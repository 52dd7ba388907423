package io.docmirror.store.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How the store lays out its RocksDB keys. All integers are big-endian so that byte order is numeric order.
 * <pre>
 * items      [container id:4][log partition:2][partition key length:2][partition key][id UTF-8]
 * change log [container id:4][log partition:2][lsn:8]
 * expiry     [container id:4][expires at, epoch seconds:8][item key]
 * log end    [container id:4][log partition:2]            (value: the partition's newest LSN)
 * </pre>
 * Keying items by log partition first lets backfill scan one feed range at a time; the partition key next makes a
 * logical partition one contiguous range.
 */
public final class KeyLayout {
    private KeyLayout() {
    }

    public static byte[] containerPrefix(int containerId) {
        return ByteBuffer.allocate(4).putInt(containerId).array();
    }

    public static byte[] logPartitionPrefix(int containerId, int logPartition) {
        return ByteBuffer.allocate(6).putInt(containerId).putShort((short) logPartition).array();
    }

    public static byte[] partitionPrefix(int containerId, int logPartition, byte[] partitionKey) {
        return ByteBuffer.allocate(8 + partitionKey.length)
                .putInt(containerId).putShort((short) logPartition).putShort((short) partitionKey.length)
                .put(partitionKey).array();
    }

    public static byte[] itemKey(int containerId, int logPartition, byte[] partitionKey, String id) {
        byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + partitionKey.length + idBytes.length)
                .putInt(containerId).putShort((short) logPartition).putShort((short) partitionKey.length)
                .put(partitionKey).put(idBytes).array();
    }

    public static int itemLogPartition(byte[] itemKey) {
        return ByteBuffer.wrap(itemKey, 4, 2).getShort() & 0xffff;
    }

    public static byte[] itemPartitionKey(byte[] itemKey) {
        int length = ByteBuffer.wrap(itemKey, 6, 2).getShort() & 0xffff;
        return Arrays.copyOfRange(itemKey, 8, 8 + length);
    }

    public static String itemId(byte[] itemKey) {
        int length = ByteBuffer.wrap(itemKey, 6, 2).getShort() & 0xffff;
        return new String(itemKey, 8 + length, itemKey.length - 8 - length, StandardCharsets.UTF_8);
    }

    public static byte[] changeLogKey(int containerId, int logPartition, long lsn) {
        return ByteBuffer.allocate(14).putInt(containerId).putShort((short) logPartition).putLong(lsn).array();
    }

    public static long changeLogLsn(byte[] changeLogKey) {
        return ByteBuffer.wrap(changeLogKey, 6, 8).getLong();
    }

    public static byte[] expiryKey(int containerId, long expiresAtSeconds, byte[] itemKey) {
        return ByteBuffer.allocate(12 + itemKey.length)
                .putInt(containerId).putLong(expiresAtSeconds).put(itemKey).array();
    }

    public static long expiryTime(byte[] expiryKey) {
        return ByteBuffer.wrap(expiryKey, 4, 8).getLong();
    }

    public static byte[] expiryItemKey(byte[] expiryKey) {
        return Arrays.copyOfRange(expiryKey, 12, expiryKey.length);
    }

    public static byte[] logEndKey(int containerId, int logPartition) {
        return logPartitionPrefix(containerId, logPartition);
    }

    /** Where a log partition's start (the newest LSN removed by retention) is kept, next to its end. */
    public static byte[] logStartKey(int containerId, int logPartition) {
        return java.util.Arrays.copyOf(logPartitionPrefix(containerId, logPartition), 7);
    }

    /** The smallest key greater than every key that starts with the prefix (for exclusive upper bounds). */
    public static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int index = end.length - 1; index >= 0; index--) {
            if (end[index] != (byte) 0xff) {
                end[index]++;
                return Arrays.copyOf(end, index + 1);
            }
        }
        throw new IllegalArgumentException("a prefix of 0xff bytes only has no end");
    }

    public static byte[] longValue(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    public static long readLong(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }
}
