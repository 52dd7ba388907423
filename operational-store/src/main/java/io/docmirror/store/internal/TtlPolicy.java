package io.docmirror.store.internal;

/**
 * When an item expires, by Cosmos DB's rules: with the container's default TTL absent nothing expires (an item's
 * {@code ttl} is ignored); otherwise the item's own {@code ttl} wins over the default; -1 means never; n means n
 * seconds after the item's last write ({@code _ts}).
 */
public final class TtlPolicy {
    public static final long NEVER = Long.MAX_VALUE;

    private TtlPolicy() {
    }

    /** The epoch second at which the item expires, or {@link #NEVER}. */
    public static long expiresAt(Integer containerDefaultTtl, Integer itemTtl, long tsSeconds) {
        if (containerDefaultTtl == null) {
            return NEVER;
        }
        int ttl = itemTtl != null ? itemTtl : containerDefaultTtl;
        return ttl == -1 ? NEVER : tsSeconds + ttl;
    }

    public static boolean isExpired(long expiresAt, long nowSeconds) {
        return expiresAt != NEVER && nowSeconds >= expiresAt;
    }
}
