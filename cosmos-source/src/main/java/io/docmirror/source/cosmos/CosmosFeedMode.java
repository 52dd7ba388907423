package io.docmirror.source.cosmos;

import com.fasterxml.jackson.annotation.JsonValue;

/** Which of its change feeds a Cosmos DB account's container is mirrored from. */
public enum CosmosFeedMode {
    /** Every change in order, deletes and TTL expiries included: the mirror is exact, history and all. */
    ALL_VERSIONS_AND_DELETES("all versions and deletes", "every change, deletes included"),
    /**
     * Each item's newest version once, for accounts that do not offer all versions and deletes (it needs continuous
     * backup on Azure): deletes and intermediate versions never reach the mirror.
     */
    LATEST_VERSION("latest version", "deletes and intermediate versions are NOT mirrored: a deleted item stays in "
            + "the mirror, and an item changed twice between reads shows only its newer version");

    private final String wireName;
    private final String consequence;

    CosmosFeedMode(String wireName, String consequence) {
        this.wireName = wireName;
        this.consequence = consequence;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** The mode in a sentence for {@code status}: its name and what it means for the mirror. */
    public String describe() {
        return "Cosmos DB change feed, " + wireName + " (" + consequence + ")";
    }
}
