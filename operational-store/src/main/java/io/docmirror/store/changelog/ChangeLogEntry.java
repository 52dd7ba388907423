package io.docmirror.store.changelog;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.store.PartitionKeyValue;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How the store keeps a change event in its log: a binary envelope that a reader decodes without a JSON parser, taking
 * the documents as byte ranges that are parsed only on first use ({@link ChangeEvent#document()}).
 * <pre>
 * byte format (1) | byte operation (C, R, D) | byte flags (1 = ttlExpired) | long lsn | long ts
 * | string container | string partition key as JSON | string id
 * | int documentLength | int previousLength | document JSON | previous JSON
 * </pre>
 * A string is an int length and that many UTF-8 bytes; a document length of -1 means the image is absent. Over HTTP
 * and on Kafka an event travels as JSON instead ({@link ChangeEventJson}).
 */
public final class ChangeLogEntry {
    private static final byte FORMAT = 1;
    private static final byte TTL_EXPIRED = 1;
    /** After the format, operation and flag bytes and the LSN. */
    private static final int TS_OFFSET = 3 + Long.BYTES;

    private ChangeLogEntry() {
    }

    /**
     * @param document the item's JSON after the change, or null
     * @param previous the item's JSON before the change, or null
     */
    public static byte[] encode(String container, JsonNode partitionKey, String id, Operation operation, long lsn,
            long ts, boolean ttlExpired, byte[] document, byte[] previous) {
        byte[] containerBytes = container.getBytes(StandardCharsets.UTF_8);
        byte[] partitionKeyBytes = json(partitionKey);
        byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
        ByteBuffer entry = ByteBuffer.allocate(3 + 2 * Long.BYTES + 5 * Integer.BYTES + containerBytes.length
                + partitionKeyBytes.length + idBytes.length + length(document) + length(previous));
        entry.put(FORMAT)
                .put(operationCode(operation))
                .put(ttlExpired ? TTL_EXPIRED : 0)
                .putLong(lsn)
                .putLong(ts);
        putBytes(entry, containerBytes);
        putBytes(entry, partitionKeyBytes);
        putBytes(entry, idBytes);
        entry.putInt(document == null ? -1 : document.length).putInt(previous == null ? -1 : previous.length);
        if (document != null) {
            entry.put(document);
        }
        if (previous != null) {
            entry.put(previous);
        }
        return entry.array();
    }

    /**
     * @throws IllegalArgumentException when the bytes are not a log entry of a format this version knows
     */
    public static ChangeEvent decode(byte[] entry) {
        ByteBuffer buffer = ByteBuffer.wrap(entry);
        try {
            byte format = buffer.get();
            if (format != FORMAT) {
                throw new IllegalArgumentException("Cannot read change log entry: format " + format
                        + " is not one this version knows (" + FORMAT + ")");
            }
            Operation operation = operation(buffer.get());
            boolean ttlExpired = (buffer.get() & TTL_EXPIRED) != 0;
            long lsn = buffer.getLong();
            long ts = buffer.getLong();
            String container = getString(buffer);
            PartitionKeyValue partitionKey = partitionKey(getString(buffer));
            String id = getString(buffer);
            int documentLength = buffer.getInt();
            int previousLength = buffer.getInt();
            DocumentImage document = image(buffer, documentLength);
            DocumentImage previous = image(buffer, previousLength);
            if (buffer.hasRemaining()) {
                throw new IllegalArgumentException("Cannot read change log entry of " + container + "/" + id + ": "
                        + buffer.remaining() + " bytes left over");
            }
            return new ChangeEvent(container, partitionKey, id, operation, lsn, ts, ttlExpired, document, previous);
        } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("Cannot read change log entry: it is cut short at " + entry.length
                    + " bytes", e);
        }
    }

    /** The event's commit time ({@link ChangeEvent#ts()}), read from its fixed place without decoding the rest. */
    public static long ts(byte[] entry) {
        ByteBuffer buffer = ByteBuffer.wrap(entry);
        if (entry.length < TS_OFFSET + Long.BYTES || buffer.get(0) != FORMAT) {
            throw new IllegalArgumentException("Cannot read change log entry: not an entry of format " + FORMAT);
        }
        return buffer.getLong(TS_OFFSET);
    }

    private static byte operationCode(Operation operation) {
        return switch (operation) {
            case CREATE -> 'C';
            case REPLACE -> 'R';
            case DELETE -> 'D';
        };
    }

    private static Operation operation(byte code) {
        return switch (code) {
            case 'C' -> Operation.CREATE;
            case 'R' -> Operation.REPLACE;
            case 'D' -> Operation.DELETE;
            default -> throw new IllegalArgumentException("Cannot read change log entry: unknown operation " + code);
        };
    }

    /** A string without escapes (nearly every partition key) becomes a node directly; anything else is parsed. */
    private static PartitionKeyValue partitionKey(String json) {
        if (json.length() >= 2 && json.charAt(0) == '"' && json.indexOf('\\') < 0) {
            return PartitionKeyValue.of(TextNode.valueOf(json.substring(1, json.length() - 1)));
        }
        if (json.equals("{}")) {
            return PartitionKeyValue.NONE;
        }
        try {
            return PartitionKeyValue.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cannot read change log entry: " + e.getMessage(), e);
        }
    }

    private static DocumentImage image(ByteBuffer buffer, int length) {
        if (length < 0) {
            return null;
        }
        byte[] json = new byte[length];
        buffer.get(json);
        return DocumentImage.ofJson(json);
    }

    private static void putBytes(ByteBuffer buffer, byte[] bytes) {
        buffer.putInt(bytes.length).put(bytes);
    }

    private static String getString(ByteBuffer buffer) {
        int length = buffer.getInt();
        String value = new String(buffer.array(), buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return value;
    }

    /**
     * The value's JSON text, as {@link JsonNode#toString()} writes it. A string, nearly every partition key, is quoted
     * directly: a JSON generator for each of a bulk load's events cost a tenth of its writing thread.
     */
    private static byte[] json(JsonNode value) {
        if (!value.isTextual()) {
            return value.toString().getBytes(StandardCharsets.UTF_8);
        }
        byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(value.textValue());
        byte[] quoted = new byte[escaped.length + 2];
        quoted[0] = '"';
        System.arraycopy(escaped, 0, quoted, 1, escaped.length);
        quoted[quoted.length - 1] = '"';
        return quoted;
    }

    private static int length(byte[] image) {
        return image == null ? 0 : image.length;
    }
}
