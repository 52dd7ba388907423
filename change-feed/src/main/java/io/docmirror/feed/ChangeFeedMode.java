package io.docmirror.feed;

import java.util.Arrays;

/** What a change feed returns, as Cosmos DB's two change feed modes define it. */
public enum ChangeFeedMode {
    /**
     * Creates and updates, and of each item only its newest version at the time of the read: an item updated
     * three times since the position comes once, a deleted item does not come at all.
     */
    LATEST_VERSION("latest-version"),
    /**
     * Every change in order: creates, replaces and deletes, with {@code ttlExpired} set on deletes by TTL expiry
     * and the previous image on replaces and deletes.
     */
    ALL_VERSIONS_AND_DELETES("all-versions-and-deletes");

    private final String configValue;

    ChangeFeedMode(String configValue) {
        this.configValue = configValue;
    }

    public String configValue() {
        return configValue;
    }

    public static ChangeFeedMode fromConfigValue(String value) {
        return Arrays.stream(values())
                .filter(mode -> mode.configValue.equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown change feed mode '" + value
                        + "': expected latest-version or all-versions-and-deletes"));
    }
}
