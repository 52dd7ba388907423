package io.docmirror.store;

import io.docmirror.store.internal.RocksStorage;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Picks split points that cut a key range into intervals of similar size, without reading every key. A range of at
 * most {@value #COUNTED_KEYS} keys is counted (keys only, no values) and cut at equal counts. A larger one is cut by
 * RocksDB's size estimates (SST index blocks and memtable statistics, no data read): each split point is found by
 * bisecting the key space just after the range's prefix until the estimated bytes before it reach their share.
 * Split points need not be keys that exist: any key between two items is a valid place to cut.
 */
final class KeyRangeSplitter {
    /** Ranges up to this many keys are counted and cut exactly. */
    static final int COUNTED_KEYS = 4096;
    /** How many bytes after the prefix the bisection resolves: enough to tell partition keys apart. */
    private static final int BISECTED_BYTES = 16;

    private final RocksStorage storage;

    KeyRangeSplitter(RocksStorage storage) {
        this.storage = storage;
    }

    /**
     * At most {@code intervals - 1} split points, strictly increasing and strictly inside ({@code prefix},
     * {@code until}), that cut the snapshot's keys of the range [{@code prefix}, {@code until}) into at most
     * {@code intervals} pieces of similar size.
     */
    List<byte[]> splitPoints(RocksStorage.Snapshot snapshot, byte[] prefix, byte[] until, int intervals) {
        if (intervals <= 1) {
            return List.of();
        }
        List<byte[]> keys = new ArrayList<>();
        try (RocksStorage.BoundedIterator iterator = snapshot.iterate(storage.items(), prefix, until)) {
            for (; iterator.valid() && keys.size() <= COUNTED_KEYS; iterator.next()) {
                keys.add(iterator.key());
            }
        }
        return keys.size() <= COUNTED_KEYS
                ? byCount(keys, intervals)
                : bySize(prefix, until, intervals);
    }

    /** Each interval starts at the key that makes the counts before it equal (an interval never starts empty). */
    private static List<byte[]> byCount(List<byte[]> keys, int intervals) {
        List<byte[]> points = new ArrayList<>();
        int previous = 0;
        for (int index = 1; index < intervals; index++) {
            int at = (int) ((long) index * keys.size() / intervals);
            if (at > previous) {
                points.add(keys.get(at));
                previous = at;
            }
        }
        return points;
    }

    private List<byte[]> bySize(byte[] prefix, byte[] until, int intervals) {
        long total = storage.approximateSize(storage.items(), prefix, until);
        List<byte[]> points = new ArrayList<>();
        if (total <= 0) {
            return points;
        }
        BigInteger low = BigInteger.ZERO;
        BigInteger end = BigInteger.ONE.shiftLeft(8 * BISECTED_BYTES);
        long tolerance = Math.max(1, total / (8L * intervals));
        for (int index = 1; index < intervals; index++) {
            long target = total / intervals * index;
            BigInteger high = end;
            // Invariant: the bytes before key(low) are below the target, those before key(high) are not.
            while (high.subtract(low).compareTo(BigInteger.ONE) > 0) {
                BigInteger middle = low.add(high).shiftRight(1);
                long before = storage.approximateSize(storage.items(), prefix, key(prefix, middle));
                if (Math.abs(before - target) <= tolerance) {
                    high = middle;
                    break;
                }
                if (before < target) {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            byte[] point = key(prefix, high);
            if (high.signum() > 0 && high.compareTo(end) < 0
                    && (points.isEmpty() || Arrays.compareUnsigned(points.get(points.size() - 1), point) < 0)
                    && Arrays.compareUnsigned(point, until) < 0) {
                points.add(point);
            }
            low = high;
        }
        return points;
    }

    /** The prefix followed by the position's bytes, without trailing zeros (a shorter key of the same order). */
    private static byte[] key(byte[] prefix, BigInteger position) {
        byte[] bytes = position.toByteArray();
        byte[] fixed = new byte[BISECTED_BYTES];
        int copied = Math.min(bytes.length, BISECTED_BYTES);
        System.arraycopy(bytes, bytes.length - copied, fixed, BISECTED_BYTES - copied, copied);
        int length = BISECTED_BYTES;
        while (length > 1 && fixed[length - 1] == 0) {
            length--;
        }
        byte[] key = Arrays.copyOf(prefix, prefix.length + length);
        System.arraycopy(fixed, 0, key, prefix.length, length);
        return key;
    }
}
