package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Source changes a derivation could not handle, kept in the store's {@value #CONTAINER} container (partition key
 * {@code /derivation}) so that status, scripts and SQL users can see them. One item per source change and target,
 * with a deterministic id, so a replay records the same error once.
 */
public final class DerivationErrors {
    public static final String CONTAINER = "derivation-errors";
    private static final Logger log = LoggerFactory.getLogger(DerivationErrors.class);

    private final StoreClient store;

    public DerivationErrors(StoreClient store) {
        this.store = requireNonNull(store, "store is null");
    }

    /** Creates the errors container when missing. */
    public void ensureContainer() {
        try {
            store.createContainer(ContainerProperties.of(CONTAINER, "/derivation").withLogPartitions(1));
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.CONFLICT) {
                throw e;
            }
        }
    }

    void record(Derivation derivation, int range, ChangeEvent event, String target, String reason) {
        log.warn("Derivation {} skipped {} of {} document {} (LSN {}): {}", derivation.name(), target,
                event.container(), event.id(), event.lsn(), reason);
        ObjectNode error = JsonNodeFactory.instance.objectNode();
        error.put("id", target + "-" + range + "-" + event.lsn());
        error.put("derivation", derivation.name());
        error.put("target", target);
        error.put("source", event.container());
        error.put("sourceId", event.id());
        error.set("sourcePartitionKey", event.partitionKey().toJson());
        error.put("range", range);
        error.put("lsn", event.lsn());
        error.put("operation", event.operation().name());
        error.put("changedAt", Instant.ofEpochMilli(event.ts()).toString());
        error.put("reason", reason);
        store.upsertItem(CONTAINER, error.toString());
    }

    /** The errors recorded for {@code derivation}, in the order of the changes' commit times. */
    public List<ObjectNode> list(String derivation) {
        try {
            return store.readPartition(CONTAINER, PartitionKey.of(derivation)).stream()
                    .map(Item::tree)
                    .sorted(Comparator.comparing((ObjectNode error) -> error.path("changedAt").textValue())
                            .thenComparing(error -> error.path("id").textValue()))
                    .toList();
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.NOT_FOUND) {
                return List.of();
            }
            throw e;
        }
    }
}
