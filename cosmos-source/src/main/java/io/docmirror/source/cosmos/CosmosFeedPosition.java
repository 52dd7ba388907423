package io.docmirror.source.cosmos;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Where the mirror of one container of a Cosmos DB account stands in the account's change feed, committed with the
 * mirror's data (the checkpoint's {@code cosmosFeed}), so a restart goes on exactly there.
 *
 * @param describe the feed mode in words, which {@code status} shows
 * @param ranges one per feed range (partition key range), in the order of the container's feed ranges
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record CosmosFeedPosition(CosmosFeedMode mode, String describe, List<Range> ranges) {
    private static final ObjectMapper JSON = new ObjectMapper();

    CosmosFeedPosition {
        requireNonNull(mode, "mode is null");
        ranges = List.copyOf(ranges);
    }

    CosmosFeedPosition(CosmosFeedMode mode, List<Range> ranges) {
        this(mode, mode.describe(), ranges);
    }

    /**
     * One feed range's position; see {@link CosmosFeedSource} for how a container is loaded, then streamed.
     *
     * @param feedRange the SDK's feed range, as its {@code toString()} writes it
     * @param latestVersion the continuation of the latest-version feed read from the beginning (the load); in
     *     latest-version mode it is where streaming goes on; {@code null} before the first page
     * @param loaded whether the load read the latest-version feed to its end
     * @param allVersions all versions and deletes mode: the continuation of that feed, taken at "now" before the load
     *     began, and moving on once the load is done; {@code null} in latest-version mode
     * @param allVersionsFrom the LSN the all-versions feed starts after (taken with it)
     * @param loadedTo the newest LSN the load read: the history holds every change after it
     * @param loadedAbove the items the load read at a version newer than {@code allVersionsFrom}, by
     *     {@code partition key JSON + '\u0000' + id}, with that version's LSN: the all-versions feed skips their changes
     *     up to that LSN, which the mirror holds already (or newer). Emptied once the all-versions feed is read up to
     *     now, past every version the load read
     * @param reached the newest LSN of the range the mirror holds every change up to (0 while loading)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Range(String feedRange, String latestVersion, boolean loaded, String allVersions, long allVersionsFrom,
            long loadedTo, Map<String, Long> loadedAbove, long reached) {
        Range {
            requireNonNull(feedRange, "feedRange is null");
            loadedAbove = loadedAbove == null ? Map.of() : new TreeMap<>(loadedAbove);
        }

        static Range start(String feedRange, String allVersions, long allVersionsFrom) {
            return new Range(feedRange, null, false, allVersions, allVersionsFrom, 0, Map.of(), 0);
        }
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a Cosmos DB feed position: " + e.getMessage(), e);
        }
    }

    /** @throws IllegalStateException when the checkpoint's position is not one this source wrote */
    static CosmosFeedPosition fromJson(String container, String json) {
        try {
            return JSON.readValue(json, CosmosFeedPosition.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot read where the mirror of " + container + " stands in the Cosmos "
                    + "DB change feed (" + e.getOriginalMessage() + "): the checkpoint was not written by this "
                    + "version of docmirror", e);
        }
    }
}
