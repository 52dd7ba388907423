package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.GroupCommitter;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.PartitionLocks;
import io.docmirror.store.internal.RocksStorage;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The store's containers: their catalog records in RocksDB, read back when the store opens, and each live
 * container's state. A container's internal id is never given twice, so a deleted container's leftovers can never
 * mix with a new container of the same name. A container's TTLs may be replaced; each replace gives its settings a
 * new revision, which its etag names.
 */
final class ContainerCatalog {
    private static final Logger log = LoggerFactory.getLogger(ContainerCatalog.class);
    private static final byte[] CONTAINER_ID_SEQUENCE = "\u0000container-id-sequence".getBytes(StandardCharsets.UTF_8);

    private final RocksStorage storage;
    private final GroupCommitter committer;
    private final Map<String, ContainerState> containers = new ConcurrentHashMap<>();
    /** Serialises creations, replaces and deletions, and the store's closing. */
    private final Object catalogLock = new Object();

    private ContainerCatalog(RocksStorage storage, GroupCommitter committer) {
        this.storage = storage;
        this.committer = committer;
    }

    /** The catalog as the store holds it, with each log partition's start and end. */
    static ContainerCatalog load(RocksStorage storage, GroupCommitter committer) {
        ContainerCatalog catalog = new ContainerCatalog(storage, committer);
        catalog.loadContainers();
        return catalog;
    }

    ContainerProperties create(ContainerProperties properties) {
        requireNonNull(properties, "properties is null");
        synchronized (catalogLock) {
            if (containers.containsKey(properties.id())) {
                throw new StoreException(StoreErrorCode.CONFLICT,
                        "Cannot create container " + properties.id() + ": it already exists");
            }
            byte[] sequence = storage.get(storage.containers(), CONTAINER_ID_SEQUENCE);
            int containerId = sequence == null ? 1 : ByteBuffer.wrap(sequence).getInt() + 1;
            properties = properties.withResourceId(resourceId(containerId)).withEtag(etag(containerId, 0));
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(storage.containers(), CONTAINER_ID_SEQUENCE, ByteBuffer.allocate(4).putInt(containerId).array());
                batch.put(storage.containers(), properties.id().getBytes(StandardCharsets.UTF_8),
                        StoreJson.mapper().writeValueAsBytes(new StoredContainer(properties, containerId, 0, false)));
                storage.write(batch);
            } catch (RocksDBException | IOException e) {
                throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot create container " + properties.id(), e);
            }
            containers.put(properties.id(), new ContainerState(properties, containerId,
                    new long[properties.logPartitions()], new long[properties.logPartitions()]));
            log.info("Created container {}", properties);
            return properties;
        }
    }

    /**
     * Replaces a container's settings as {@link ContainerProperties#replacedWith} says. The new settings are durable
     * before this returns, and every read, write and the TTL reaper judge expiry by the new default TTL from then on:
     * when it changed, the container's writes wait while its expiry index is made again from its items
     * ({@link ExpiryIndexRebuild}; a crash midway has it made again when the store opens).
     *
     * @throws StoreException 404 when there is no such container, 400 when the replace changes what cannot change,
     *         412 when {@code precondition} names another etag than the container's
     */
    ContainerProperties replace(String container, ContainerProperties asked, Precondition precondition) {
        requireNonNull(asked, "asked is null");
        requireNonNull(precondition, "precondition is null");
        synchronized (catalogLock) {
            ContainerState state = state(container);
            ContainerProperties current = state.properties();
            ContainerProperties replaced = current.replacedWith(asked);
            if (precondition.ifMatchEtag().filter(etag -> !etag.equals(current.etag())).isPresent()) {
                throw new StoreException(StoreErrorCode.PRECONDITION_FAILED, "Cannot replace container " + container
                        + ": If-Match failed, its _etag is " + current.etag() + ", not "
                        + precondition.ifMatchEtag().get());
            }
            long revision = storedContainer(container).revision() + 1;
            replaced = replaced.withEtag(etag(state.containerId(), revision));
            boolean ttlChanged = !Objects.equals(current.defaultTtl(), replaced.defaultTtl());
            try (PartitionLocks.Held all = state.locks().lockAll()) {
                if (ttlChanged) {
                    // The writes already queued were indexed under the old TTL: they land first, then the index is
                    // made again from every item.
                    committer.drain();
                }
                writeRecord(new StoredContainer(replaced, state.containerId(), revision, ttlChanged));
                state.replaceProperties(replaced);
                if (ttlChanged) {
                    long entries = ExpiryIndexRebuild.rebuild(storage, state.containerId(), replaced.defaultTtl());
                    writeRecord(new StoredContainer(replaced, state.containerId(), revision, false));
                    log.info("Rebuilt the expiry index of container {} for default TTL {}: {} items expire",
                            container, replaced.defaultTtl(), entries);
                }
            }
            log.info("Replaced container {} with {}", container, replaced);
            return replaced;
        }
    }

    /** @throws StoreException 404 when there is no such container */
    ContainerState state(String container) {
        requireNonNull(container, "container is null");
        ContainerState state = containers.get(container);
        if (state == null) {
            throw new StoreException(StoreErrorCode.NOT_FOUND, "Container " + container + " does not exist");
        }
        return state;
    }

    Collection<ContainerState> states() {
        return containers.values();
    }

    List<ContainerProperties> list() {
        return containers.values().stream()
                .map(ContainerState::properties)
                .sorted(Comparator.comparing(ContainerProperties::id))
                .toList();
    }

    void delete(String container) {
        synchronized (catalogLock) {
            ContainerState state = state(container);
            try (PartitionLocks.Held all = state.locks().lockAll()) {
                state.markDeleted();
                // The writes already queued land first, so that the range deletes below remove them too.
                committer.drain();
                // The record goes first: after a crash midway, the leftover rows belong to no container and, as
                // container ids are never reused, can never be seen again.
                try (WriteBatch batch = new WriteBatch()) {
                    batch.delete(storage.containers(), container.getBytes(StandardCharsets.UTF_8));
                    storage.write(batch);
                } catch (RocksDBException e) {
                    throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot delete container " + container, e);
                }
                byte[] prefix = KeyLayout.containerPrefix(state.containerId());
                byte[] end = KeyLayout.prefixEnd(prefix);
                for (var family : List.of(storage.items(), storage.changeLog(), storage.expiry(), storage.logEnds())) {
                    storage.deleteRange(family, prefix, end);
                }
                containers.remove(container);
            }
            log.info("Deleted container {}", container);
        }
    }

    /**
     * What a container's items and change log take on disk, after compacting them so that deleted items and
     * trimmed events no longer count.
     */
    ContainerUsage usage(String container) {
        byte[] prefix = KeyLayout.containerPrefix(state(container).containerId());
        byte[] end = KeyLayout.prefixEnd(prefix);
        return new ContainerUsage(storage.compactedSize(storage.items(), prefix, end),
                storage.compactedSize(storage.changeLog(), prefix, end));
    }

    /**
     * Runs {@code closing} once no container is being created or deleted and every write being built has been
     * queued; the log partitions stay locked, so no write starts after it.
     */
    void closeWith(Runnable closing) {
        synchronized (catalogLock) {
            for (ContainerState state : containers.values()) {
                state.locks().lockAll();
            }
            closing.run();
        }
    }

    private void loadContainers() {
        try (var iterator = storage.iterate(storage.containers(), new byte[0], new byte[] {(byte) 0xff})) {
            for (; iterator.valid(); iterator.next()) {
                if (Arrays.equals(iterator.key(), CONTAINER_ID_SEQUENCE)) {
                    continue;
                }
                StoredContainer stored = StoreJson.mapper().readValue(iterator.value(), StoredContainer.class);
                long[] logEnds = new long[stored.properties().logPartitions()];
                long[] logStarts = new long[logEnds.length];
                for (int partition = 0; partition < logEnds.length; partition++) {
                    byte[] end = storage.get(storage.logEnds(), KeyLayout.logEndKey(stored.containerId(), partition));
                    logEnds[partition] = end == null ? 0 : KeyLayout.readLong(end);
                    byte[] start = storage.get(storage.logEnds(), KeyLayout.logStartKey(stored.containerId(), partition));
                    logStarts[partition] = start == null ? 0 : KeyLayout.readLong(start);
                }
                ContainerProperties properties = stored.properties().withResourceId(resourceId(stored.containerId()))
                        .withEtag(etag(stored.containerId(), stored.revision()));
                if (stored.rebuildingExpiryIndex()) {
                    // A replace of the default TTL was cut short: its index is made again before any write or reaping.
                    long entries = ExpiryIndexRebuild.rebuild(storage, stored.containerId(), properties.defaultTtl());
                    writeRecord(new StoredContainer(properties, stored.containerId(), stored.revision(), false));
                    log.info("Finished rebuilding the expiry index of container {} for default TTL {}: {} items "
                            + "expire", properties.id(), properties.defaultTtl(), entries);
                }
                containers.put(properties.id(), new ContainerState(properties, stored.containerId(), logEnds,
                        logStarts));
            }
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot read the store's container catalog", e);
        }
    }

    private StoredContainer storedContainer(String container) {
        byte[] record = storage.get(storage.containers(), container.getBytes(StandardCharsets.UTF_8));
        if (record == null) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot read the catalog record of container "
                    + container + ": the store has none");
        }
        try {
            return StoreJson.mapper().readValue(record, StoredContainer.class);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot read the catalog record of container "
                    + container, e);
        }
    }

    private void writeRecord(StoredContainer record) {
        try (WriteBatch batch = new WriteBatch()) {
            batch.put(storage.containers(), record.properties().id().getBytes(StandardCharsets.UTF_8),
                    StoreJson.mapper().writeValueAsBytes(record));
            storage.write(batch);
        } catch (RocksDBException | IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot write the catalog record of container "
                    + record.properties().id(), e);
        }
    }

    /**
     * A container's catalog record.
     *
     * @param revision how many times its settings were replaced (0 in records written before replaces existed)
     * @param rebuildingExpiryIndex true while a replace of its default TTL makes its expiry index again
     */
    record StoredContainer(ContainerProperties properties, int containerId, long revision,
            boolean rebuildingExpiryIndex) {
    }

    /** A container's {@code _etag}: its resource id and the revision of its settings. */
    private static String etag(int containerId, long revision) {
        return "\"" + resourceId(containerId) + ":" + revision + "\"";
    }

    /** A container's {@code _rid}: its internal id, which is never given twice, in URL-safe Base64. */
    private static String resourceId(int containerId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(ByteBuffer.allocate(4).putInt(containerId)
                .array());
    }
}
