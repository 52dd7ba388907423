package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.commons.codec.digest.MurmurHash3;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * Cosmos DB's effective partition key (hash partitioning, version 2): where a partition key value falls in the
 * space of hashes that partition key ranges (feed ranges) split. Its hex form is what the SDKs compute to route a
 * request and what {@code minInclusive}/{@code maxExclusive} of a partition key range bound.
 *
 * <p>The value is written as one tagged component (undefined 0x00, null 0x01, false 0x02, true 0x03, a number 0x05
 * followed by its IEEE-754 double in little-endian order, a string 0x08 followed by its UTF-8 bytes and 0xFF), hashed
 * with MurmurHash3 x64 128 (seed 0), and the two 64-bit halves are written second half first, big-endian, with the
 * top two bits cleared so every key sorts below the space's exclusive end {@code FF}.
 *
 * <p>A number is hashed as the double nearest to it, as the SDKs do: two numbers a double cannot tell apart share a
 * feed range (never an item: items are keyed by their exact value).
 */
public final class EffectivePartitionKey {
    private static final byte UNDEFINED = 0x00;
    private static final byte NULL = 0x01;
    private static final byte FALSE = 0x02;
    private static final byte TRUE = 0x03;
    private static final byte NUMBER = 0x05;
    private static final byte STRING = 0x08;
    private static final byte STRING_END = (byte) 0xFF;

    /** The hashes occupy [0, 2^126) of the 128-bit space: the first 64 bits are below 2^62. */
    private static final long HIGH_BITS_END = 1L << 62;

    private final byte[] bytes;

    private EffectivePartitionKey(byte[] bytes) {
        this.bytes = bytes;
    }

    public static EffectivePartitionKey of(PartitionKey partitionKey) {
        requireNonNull(partitionKey, "partitionKey is null");
        byte[] component = component(partitionKey);
        long[] hash = MurmurHash3.hash128x64(component, 0, component.length, 0);
        byte[] bytes = ByteBuffer.allocate(16).putLong(hash[1]).putLong(hash[0]).array();
        bytes[0] &= 0x3F;
        return new EffectivePartitionKey(bytes);
    }

    /** Upper-case hex, 32 characters, as the SDKs write it. */
    public String toHex() {
        return HexFormat.of().withUpperCase().formatHex(bytes);
    }

    /**
     * Which of {@code ranges} equal ranges of the hash space this key falls in: range {@code i} covers the keys
     * from {@link #rangeStart(int, int) rangeStart(i, ranges)} (inclusive) to the next range's start.
     */
    public int rangeIndex(int ranges) {
        long high = ByteBuffer.wrap(bytes).getLong();
        return (int) Math.min(high / rangeWidth(ranges), ranges - 1);
    }

    /**
     * The hex form of range {@code index}'s inclusive lower bound: {@code ""} (the space's start) for the first,
     * otherwise 16 hex digits that sort, as strings, between the keys below them and the keys at or above them.
     */
    public static String rangeStart(int index, int ranges) {
        if (index < 0 || index > ranges) {
            throw new IllegalArgumentException("range " + index + " of " + ranges + " does not exist");
        }
        if (index == 0) {
            return "";
        }
        if (index == ranges) {
            return "FF";
        }
        return HexFormat.of().withUpperCase().toHexDigits(index * rangeWidth(ranges));
    }

    private static long rangeWidth(int ranges) {
        if (ranges < 1) {
            throw new IllegalArgumentException("ranges must be at least 1, not " + ranges);
        }
        return (HIGH_BITS_END + ranges - 1) / ranges;
    }

    private static byte[] component(PartitionKey partitionKey) {
        if (partitionKey.isNone()) {
            return new byte[] {UNDEFINED};
        }
        JsonNode value = partitionKey.toJson();
        if (value.isNull()) {
            return new byte[] {NULL};
        }
        if (value.isBoolean()) {
            return new byte[] {value.booleanValue() ? TRUE : FALSE};
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (value.isNumber()) {
            out.write(NUMBER);
            // Equal keys hash alike: -0 is the key 0.
            double number = value.doubleValue() == 0 ? 0.0 : value.doubleValue();
            out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(number).array());
        }
        else {
            out.write(STRING);
            out.writeBytes(value.textValue().getBytes(StandardCharsets.UTF_8));
            out.write(STRING_END);
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return toHex();
    }
}
