package io.docmirror.mirror.reconcile;

/**
 * A document's key as a reconcile compares it: its partition key's JSON and its id.
 *
 * <p>On disk it is the UTF-16 code units of {@code partitionKey + NUL + id}, big-endian: DuckDB orders those bytes
 * (unsigned, shorter first) exactly as Java orders the text, so differences are listed in the order reports always
 * listed them, which DuckDB's own order of text (by code point) would change for characters beyond U+FFFF. A
 * partition key's JSON holds no NUL (JSON escapes it), so the first NUL ends it.
 */
record DocumentKey(String partitionKey, String id) {
    private static final char SEPARATOR = '\u0000';

    /** The key as bytes that sort as its text does. */
    byte[] bytes() {
        String text = partitionKey + SEPARATOR + id;
        byte[] bytes = new byte[text.length() * 2];
        for (int index = 0; index < text.length(); index++) {
            char unit = text.charAt(index);
            bytes[2 * index] = (byte) (unit >>> 8);
            bytes[2 * index + 1] = (byte) unit;
        }
        return bytes;
    }

    /** The key whose {@link #bytes()} are {@code bytes}. */
    static DocumentKey of(byte[] bytes) {
        char[] text = new char[bytes.length / 2];
        for (int index = 0; index < text.length; index++) {
            text[index] = (char) (((bytes[2 * index] & 0xff) << 8) | (bytes[2 * index + 1] & 0xff));
        }
        String key = new String(text);
        int separator = key.indexOf(SEPARATOR);
        return new DocumentKey(key.substring(0, separator), key.substring(separator + 1));
    }
}
