package io.docmirror.store;

import java.util.Arrays;
import java.util.Base64;

/**
 * How a snapshot's split points and continuations travel: the item-key bytes after the log partition's prefix, in
 * base64url without padding (URL-safe, opaque to clients). Any such string is a position in the partition's key order;
 * a decoded one is checked only for being well-formed, since every position splits the order correctly.
 */
final class SnapshotKeys {
    /** Longer than any item key: a partition key and an id together stay far below it. */
    private static final int MAX_SUFFIX_BYTES = 8 * 1024;

    private final String container;
    private final byte[] prefix;

    /** @param prefix the log partition's key prefix */
    SnapshotKeys(String container, byte[] prefix) {
        this.container = container;
        this.prefix = prefix;
    }

    String encode(byte[] key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOfRange(key, prefix.length,
                key.length));
    }

    /**
     * @param what names the string in an error ("split point", "continuation")
     * @throws StoreException 400 when the string is not one {@link #encode} makes
     */
    byte[] decode(String token, String what) {
        byte[] suffix;
        try {
            suffix = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            throw invalid(token, what, "it is not base64url", e);
        }
        if (suffix.length == 0 || suffix.length > MAX_SUFFIX_BYTES) {
            throw invalid(token, what, "it must encode 1 to " + MAX_SUFFIX_BYTES + " bytes", null);
        }
        byte[] key = Arrays.copyOf(prefix, prefix.length + suffix.length);
        System.arraycopy(suffix, 0, key, prefix.length, suffix.length);
        return key;
    }

    private StoreException invalid(String token, String what, String rule, Throwable cause) {
        String shown = token.length() > 64 ? token.substring(0, 64) + "..." : token;
        return new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot read a snapshot of container " + container
                + ": " + what + " '" + shown + "' is malformed (" + rule + "); use one the snapshot gave", cause);
    }
}
