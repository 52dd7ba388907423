package io.docmirror.store.internal;

import io.docmirror.store.PartitionKey;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A document that passed every rule of {@link DocumentValidator}, ready to be stored once the store adds its system
 * properties.
 *
 * @param ttl the item's own {@code ttl} in seconds, or null when it has none
 * @param openBody the document re-encoded without its closing brace and without system properties
 * @param hasProperties whether {@code openBody} holds at least one property
 */
public record ValidatedDocument(String id, PartitionKey partitionKey, Integer ttl, byte[] openBody,
        boolean hasProperties) {
    /** The stored item: the document followed by {@code _rid}, {@code _etag}, {@code _ts} and {@code _lsn}. */
    public byte[] withSystemProperties(String rid, String etag, long tsSeconds, long lsn) {
        // rid and etag are made by the store of letters, digits, '-' and '"' only, so escaping the quotes suffices.
        byte[] tail = ((hasProperties ? "," : "") + "\"_rid\":\"" + rid + "\",\"_etag\":\"" + etag.replace("\"", "\\\"")
                + "\",\"_ts\":" + tsSeconds + ",\"_lsn\":" + lsn + "}").getBytes(StandardCharsets.US_ASCII);
        byte[] item = Arrays.copyOf(openBody, openBody.length + tail.length);
        System.arraycopy(tail, 0, item, openBody.length, tail.length);
        return item;
    }
}
