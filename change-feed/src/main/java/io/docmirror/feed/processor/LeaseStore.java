package io.docmirror.feed.processor;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A processor's leases, kept as items of the lease container (partition key {@code /group}). Every change is a
 * replace guarded by the lease's ETag, so when two workers race for a lease exactly one wins, and a worker learns
 * that it lost a lease when its renewal or checkpoint is refused.
 */
final class LeaseStore {
    private final StoreClient store;
    private final String leaseContainer;
    private final String container;
    private final String group;

    LeaseStore(StoreClient store, String leaseContainer, String container, String processorName) {
        this.store = store;
        this.leaseContainer = leaseContainer;
        this.container = container;
        this.group = container + ":" + processorName;
    }

    /** Creates the lease container and one lease per feed range where missing. */
    void ensureLeases(int logPartitions) {
        try {
            store.createContainer(ContainerProperties.of(leaseContainer, "/group").withLogPartitions(1));
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.CONFLICT) {
                throw e;
            }
        }
        for (int partition = 0; partition < logPartitions; partition++) {
            if (store.findItem(leaseContainer, PartitionKey.of(group), Lease.id(group, partition)).isEmpty()) {
                try {
                    store.createItem(leaseContainer,
                            new Lease(group, container, partition, null, 0, null, null).toJson());
                } catch (StoreException e) {
                    if (e.code() != StoreErrorCode.CONFLICT) {
                        throw e;
                    }
                }
            }
        }
    }

    List<Lease> list() {
        List<Lease> leases = new ArrayList<>();
        for (Item item : store.readPartition(leaseContainer, PartitionKey.of(group))) {
            leases.add(Lease.fromItem(item));
        }
        leases.sort(Comparator.comparingInt(Lease::logPartition));
        return leases;
    }

    /**
     * Writes {@code lease} over the version whose ETag it carries.
     *
     * @return the lease as stored (with its new ETag), or empty when another worker changed it first
     */
    Optional<Lease> replace(Lease lease) {
        try {
            Item item = store.replaceItem(leaseContainer, PartitionKey.of(group), lease.id(), lease.toJson(),
                    Precondition.ifMatch(lease.etag()));
            return Optional.of(Lease.fromItem(item));
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.PRECONDITION_FAILED) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
