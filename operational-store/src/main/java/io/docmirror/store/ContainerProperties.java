package io.docmirror.store;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.regex.Pattern;
import java.util.zip.CRC32C;

import static java.util.Objects.requireNonNull;

/**
 * A container's settings, as Cosmos DB has them.
 *
 * @param id the container's name
 * @param partitionKeyPath where the partition key value sits in each item, e.g. {@code /customerId}
 * @param defaultTtl {@code null}: TTL off, items never expire and their {@code ttl} is ignored; {@code -1}: TTL on
 *        with no default (only items with a {@code ttl} expire); {@code n > 0}: items expire n seconds after their
 *        last write unless their own {@code ttl} says otherwise
 * @param analyticalTtl {@code null} or {@code 0}: not mirrored; {@code -1}: mirrored and kept forever;
 *        {@code n > 0}: mirrored rows are kept n seconds after their last write
 * @param logPartitions how many log partitions (feed ranges) the change log is split into, by hash of the
 *        partition key value; fixed when the container is created
 * @param resourceId the store's identity of the container ({@code _rid}), given when it is created and never given
 *        again: a container deleted and created again under the same name has another. {@code null} in a request
 * @param partitionHashing how a partition key value picks its log partition: {@code null} (absent) for the store's
 *        own hash, {@link PartitionHashing#COSMOS_HASH_V2} for Cosmos DB's effective partition key, which the
 *        containers created through the Cosmos DB routes use so that their feed ranges are the SDKs' partition key
 *        ranges; fixed when the container is created
 * @param etag the store's version of these settings ({@code _etag}), which changes with every replace of them
 *        ({@link StoreClient#replaceContainer}); {@code null} in a request
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ContainerProperties(
        String id,
        String partitionKeyPath,
        Integer defaultTtl,
        Integer analyticalTtl,
        int logPartitions,
        @JsonProperty("_rid") String resourceId,
        PartitionHashing partitionHashing,
        @JsonProperty("_etag") String etag) {
    public static final int DEFAULT_LOG_PARTITIONS = 4;
    public static final int MAX_LOG_PARTITIONS = 1024;
    public static final int MAX_ID_LENGTH = 255;

    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final Pattern VALID_PATH = Pattern.compile("(/[^/]+)+");

    /** How a partition key value picks its log partition. */
    public enum PartitionHashing {
        /** Cosmos DB's effective partition key (hash version 2): log partition i is the i-th of equal hash ranges. */
        COSMOS_HASH_V2;

        @JsonValue
        public String wireName() {
            return "cosmos-hash-v2";
        }

        @JsonCreator
        public static PartitionHashing fromWireName(String name) {
            if (!"cosmos-hash-v2".equals(name)) {
                throw new IllegalArgumentException("unknown partition hashing '" + name + "', expected cosmos-hash-v2 "
                        + "(or none, for the store's own hash)");
            }
            return COSMOS_HASH_V2;
        }
    }

    public ContainerProperties {
        requireNonNull(id, "id is null");
        requireNonNull(partitionKeyPath, "partitionKeyPath is null");
        if (id.length() > MAX_ID_LENGTH || !VALID_ID.matcher(id).matches()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container id " + id + " is not valid: a container "
                    + "id is 1-255 characters of letters, digits, '_', '-' and '.', starting with a letter or digit");
        }
        if (!VALID_PATH.matcher(partitionKeyPath).matches()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + id + " cannot have partition key path "
                    + partitionKeyPath + ": it must be of the form /property or /a/b");
        }
        if (defaultTtl != null && (defaultTtl == 0 || defaultTtl < -1)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + id + " cannot have default TTL "
                    + defaultTtl + ": it must be absent, -1 or a positive number of seconds");
        }
        if (analyticalTtl != null && analyticalTtl < -1) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + id + " cannot have analytical TTL "
                    + analyticalTtl + ": it must be absent, 0, -1 or a positive number of seconds");
        }
        if (logPartitions < 1 || logPartitions > MAX_LOG_PARTITIONS) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + id + " cannot have " + logPartitions
                    + " log partitions: it must have 1 to " + MAX_LOG_PARTITIONS);
        }
    }

    /** Settings for a container to create: the store gives its {@link #resourceId}. */
    public ContainerProperties(String id, String partitionKeyPath, Integer defaultTtl, Integer analyticalTtl,
            int logPartitions) {
        this(id, partitionKeyPath, defaultTtl, analyticalTtl, logPartitions, null, null, null);
    }

    /**
     * Whether two resource ids ({@code _rid}) may name the same container: false only when both are known and differ,
     * that is when a container of that name was deleted and created again in between.
     */
    public static boolean mayBeSameContainer(String resourceId, String otherResourceId) {
        return resourceId == null || otherResourceId == null || resourceId.equals(otherResourceId);
    }

    public static ContainerProperties of(String id, String partitionKeyPath) {
        return new ContainerProperties(id, partitionKeyPath, null, null, DEFAULT_LOG_PARTITIONS);
    }

    public ContainerProperties withDefaultTtl(Integer seconds) {
        return new ContainerProperties(id, partitionKeyPath, seconds, analyticalTtl, logPartitions, resourceId,
                partitionHashing, etag);
    }

    public ContainerProperties withAnalyticalTtl(Integer seconds) {
        return new ContainerProperties(id, partitionKeyPath, defaultTtl, seconds, logPartitions, resourceId,
                partitionHashing, etag);
    }

    public ContainerProperties withLogPartitions(int count) {
        return new ContainerProperties(id, partitionKeyPath, defaultTtl, analyticalTtl, count, resourceId,
                partitionHashing, etag);
    }

    public ContainerProperties withResourceId(String resourceId) {
        return new ContainerProperties(id, partitionKeyPath, defaultTtl, analyticalTtl, logPartitions, resourceId,
                partitionHashing, etag);
    }

    public ContainerProperties withPartitionHashing(PartitionHashing hashing) {
        return new ContainerProperties(id, partitionKeyPath, defaultTtl, analyticalTtl, logPartitions, resourceId,
                hashing, etag);
    }

    public ContainerProperties withEtag(String etag) {
        return new ContainerProperties(id, partitionKeyPath, defaultTtl, analyticalTtl, logPartitions, resourceId,
                partitionHashing, etag);
    }

    /**
     * The settings this container has once a replace asks for {@code asked}, by Cosmos DB's rules: the default TTL
     * becomes the asked one (absent: TTL off); the analytical TTL becomes the asked one, or stays when none is asked.
     * The analytical store may be turned on (mirroring a container that was not mirrored) and its TTL changed, but
     * not turned off (a mirrored container's analytical TTL to 0: its mirror would be left behind; delete the
     * container instead). The id, the partition key path, the log partitions and the partition hashing never change.
     *
     * @return the new settings, with this container's resource id and etag
     * @throws StoreException 400 naming the setting and the rule
     */
    public ContainerProperties replacedWith(ContainerProperties asked) {
        requireNonNull(asked, "asked is null");
        String context = "Cannot replace container " + id + ": ";
        if (!asked.id.equals(id)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + "its id cannot be changed (the replace "
                    + "names " + asked.id + ")");
        }
        if (!asked.partitionKeyPath.equals(partitionKeyPath)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + "its partition key cannot be changed (it is "
                    + partitionKeyPath + ", the replace asks for " + asked.partitionKeyPath + "); create a new "
                    + "container with the new partition key and copy the items into it");
        }
        if (asked.logPartitions != logPartitions) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + "its log partitions cannot be changed (it "
                    + "has " + logPartitions + ", the replace asks for " + asked.logPartitions + ")");
        }
        if (asked.partitionHashing != partitionHashing) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + "its partition hashing cannot be changed "
                    + "(it is " + hashingName(partitionHashing) + ", the replace asks for "
                    + hashingName(asked.partitionHashing) + ")");
        }
        Integer analytical = asked.analyticalTtl == null ? analyticalTtl : asked.analyticalTtl;
        if (isMirrored() && Integer.valueOf(0).equals(analytical)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + "its analytical store cannot be turned off "
                    + "(analytical TTL " + analyticalTtl + " to 0); delete the container to stop mirroring it");
        }
        return new ContainerProperties(id, partitionKeyPath, asked.defaultTtl, analytical, logPartitions, resourceId,
                partitionHashing, etag);
    }

    private static String hashingName(PartitionHashing hashing) {
        return hashing == null ? "the store's own hash" : hashing.wireName();
    }

    /** Whether the container is mirrored: an analytical TTL of -1 or a positive number of seconds. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isMirrored() {
        return analyticalTtl != null && analyticalTtl != 0;
    }

    /**
     * The log partition (feed range) whose change log holds an item's changes: a stable hash of its partition key
     * value's canonical bytes, or under {@link PartitionHashing#COSMOS_HASH_V2} the range of its effective partition
     * key.
     */
    public int logPartitionOf(PartitionKey partitionKey) {
        if (partitionHashing == PartitionHashing.COSMOS_HASH_V2) {
            return EffectivePartitionKey.of(partitionKey).rangeIndex(logPartitions);
        }
        CRC32C crc = new CRC32C();
        crc.update(partitionKey.encodedShared());
        return (int) (crc.getValue() % logPartitions);
    }
}
