package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.feed.processor.ChangeFeedContext;
import io.docmirror.feed.processor.ChangeFeedHandler;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BatchResult;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Applies a derivation to each batch of source changes (all versions and deletes mode): every change becomes upserts
 * of the target documents it produces and deletes of those it no longer produces.
 *
 * <p><b>Idempotence.</b> Each target document carries its lineage ({@value TargetMapping#LINEAGE_FIELD}: source
 * container, id, feed range and LSN). A write is skipped when the stored document came from the same feed range at
 * the same or a later LSN, so a redelivered or replayed change never moves a target back to an older version, and
 * replaying the feed from the beginning gives the same target state. Every write is guarded by the ETag read just
 * before it, so a concurrent writer makes the group retry instead of being overwritten. LSNs are only comparable
 * within one feed range: a target document derived from sources in different partitions (a customer keyed by
 * something other than the source's partition key, say) takes the last write.
 *
 * <p><b>Deletes.</b> A user's delete removes what the source's previous image produced (for targets with
 * {@code delete-with-source}); so does an update for the documents it no longer produces (a removed line item). A
 * delete leaves a target alone when another source document wrote it since. A TTL expiry ({@code ttlExpired}) is
 * not a user's decision and changes nothing: the derived copies outlive the source's retention on purpose.
 *
 * <p><b>Bad documents.</b> A change a mapping cannot handle ({@link DerivationException}), or a target document the
 * store refuses (bad id, too large), is recorded in {@link DerivationErrors} with the reason; the batch goes on.
 * Other failures propagate, so the processor retries the batch from its checkpoint.
 */
public final class DerivationHandler implements ChangeFeedHandler {
    /** Room under the store's 2 MB batch limit for the operations' framing. */
    private static final long MAX_GROUP_BYTES = EmbeddedStore.MAX_BATCH_BYTES * 3L / 4;
    private static final int MAX_CONFLICT_RETRIES = 20;

    private final StoreClient store;
    private final Derivation derivation;
    private final DerivationErrors errors;
    private final AtomicLong eventsDerived = new AtomicLong();
    private final AtomicLong documentsWritten = new AtomicLong();
    private final AtomicLong documentsDeleted = new AtomicLong();

    /** What one target document should become: {@code json} written, or deleted when it is null. */
    private record Intent(String container, PartitionKey partitionKey, String id, String json, String sourceId,
            long lsn, ChangeEvent cause) {
        boolean isDelete() {
            return json == null;
        }
    }

    public DerivationHandler(StoreClient store, Derivation derivation, DerivationErrors errors) {
        this.store = requireNonNull(store, "store is null");
        this.derivation = requireNonNull(derivation, "derivation is null");
        this.errors = requireNonNull(errors, "errors is null");
    }

    @Override
    public void handle(ChangeFeedContext context, List<ChangeEvent> events) {
        int range = context.feedRange().logPartition();
        // Later changes of a batch overwrite earlier intents for the same target document: they come in LSN order.
        Map<String, Intent> intents = new LinkedHashMap<>();
        for (ChangeEvent event : events) {
            if (event.operation() == Operation.DELETE && event.ttlExpired()) {
                continue;
            }
            plan(event, range, intents);
            eventsDerived.incrementAndGet();
        }
        Map<String, List<Intent>> groups = new LinkedHashMap<>();
        for (Intent intent : intents.values()) {
            groups.computeIfAbsent(intent.container + "\n" + intent.partitionKey.toWire(), key -> new ArrayList<>())
                    .add(intent);
        }
        for (List<Intent> group : groups.values()) {
            for (List<Intent> chunk : chunks(group)) {
                apply(chunk, range);
            }
        }
    }

    public long eventsDerived() {
        return eventsDerived.get();
    }

    public long documentsWritten() {
        return documentsWritten.get();
    }

    public long documentsDeleted() {
        return documentsDeleted.get();
    }

    private void plan(ChangeEvent event, int range, Map<String, Intent> intents) {
        Map<String, Intent> produced = new LinkedHashMap<>();
        Set<String> failedTargets = new HashSet<>();
        Optional<ObjectNode> document = event.document();
        if (document.isPresent()) {
            for (TargetMapping target : derivation.targets()) {
                try {
                    for (TargetDocument derived : target.derive(document.get())) {
                        derived.document().set(TargetMapping.LINEAGE_FIELD, lineage(event, range));
                        String json = derived.document().toString();
                        if (fitsInStore(event, range, derived, json)) {
                            produced.put(key(derived), new Intent(derived.container(), derived.partitionKey(),
                                    derived.id(), json, event.id(), event.lsn(), event));
                        }
                    }
                } catch (DerivationException e) {
                    // The target keeps what the last good version produced; the error says why it is not newer.
                    failedTargets.add(target.container());
                    errors.record(derivation, range, event, e.target(), e.getMessage());
                }
            }
        }
        intents.putAll(produced);
        Optional<ObjectNode> previous = event.previous();
        if (previous.isEmpty()) {
            return;
        }
        for (TargetMapping target : derivation.targets()) {
            if (!target.deleteWithSource() || failedTargets.contains(target.container())) {
                continue;
            }
            List<TargetDocument> before;
            try {
                before = target.derive(previous.get());
            } catch (DerivationException e) {
                // The previous version could not be derived either (and was recorded then): it produced nothing.
                continue;
            }
            for (TargetDocument gone : before) {
                String key = key(gone);
                Intent pending = intents.get(key);
                // Another source document of this batch produced it: the delete is not this source's to make.
                boolean ownedByOther = pending != null && !pending.sourceId.equals(event.id());
                if (!produced.containsKey(key) && !ownedByOther) {
                    intents.put(key, new Intent(gone.container(), gone.partitionKey(), gone.id(), null, event.id(),
                            event.lsn(), event));
                }
            }
        }
    }

    private ObjectNode lineage(ChangeEvent event, int range) {
        ObjectNode lineage = JsonNodeFactory.instance.objectNode();
        lineage.put("derivation", derivation.name());
        lineage.put("container", event.container());
        lineage.put("id", event.id());
        lineage.put("range", range);
        lineage.put("lsn", event.lsn());
        return lineage;
    }

    private boolean fitsInStore(ChangeEvent event, int range, TargetDocument derived, String json) {
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes <= MAX_GROUP_BYTES) {
            return true;
        }
        errors.record(derivation, range, event, derived.container(), "Cannot derive a " + derived.container()
                + " document: document " + derived.id() + " would be " + bytes + " bytes, over the "
                + MAX_GROUP_BYTES + " bytes a derived document may have");
        return false;
    }

    private static String key(TargetDocument document) {
        return document.container() + "\n" + document.partitionKey().toWire() + "\n" + document.id();
    }

    /** Splits a group of one target partition into transactional batches within the store's limits. */
    private static List<List<Intent>> chunks(List<Intent> group) {
        List<List<Intent>> chunks = new ArrayList<>();
        List<Intent> chunk = new ArrayList<>();
        long bytes = 0;
        for (Intent intent : group) {
            long size = intent.isDelete() ? 0 : intent.json.length();
            if (!chunk.isEmpty() && (chunk.size() == EmbeddedStore.MAX_BATCH_OPERATIONS
                    || bytes + size > MAX_GROUP_BYTES)) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                bytes = 0;
            }
            chunk.add(intent);
            bytes += size;
        }
        if (!chunk.isEmpty()) {
            chunks.add(chunk);
        }
        return chunks;
    }

    /**
     * Writes one chunk as one transactional batch: reads each target's stored version, drops the writes the LSN
     * guard refuses, and runs the rest guarded by the ETags just read. A lost race (412, 409) re-reads and retries;
     * a document the store refuses is recorded and left out.
     */
    private void apply(List<Intent> chunk, int range) {
        List<Intent> pending = new ArrayList<>(chunk);
        String container = chunk.get(0).container;
        PartitionKey partitionKey = chunk.get(0).partitionKey;
        for (int attempt = 0; attempt <= MAX_CONFLICT_RETRIES; attempt++) {
            List<Intent> writes = new ArrayList<>();
            List<BatchOperation> operations = new ArrayList<>();
            for (Intent intent : pending) {
                Optional<Item> stored = store.findItem(container, partitionKey, intent.id);
                Optional<BatchOperation> operation = operation(intent, stored, range);
                if (operation.isPresent()) {
                    writes.add(intent);
                    operations.add(operation.get());
                }
            }
            if (operations.isEmpty()) {
                return;
            }
            BatchResult result = store.executeBatch(container, partitionKey, operations);
            if (result.isSuccess()) {
                for (Intent write : writes) {
                    (write.isDelete() ? documentsDeleted : documentsWritten).incrementAndGet();
                }
                return;
            }
            int failed = failedOperation(result);
            BatchResult.OperationResult failure = result.results().get(failed);
            int status = failure.status();
            if (status == StoreErrorCode.BAD_REQUEST.httpStatus() || status == StoreErrorCode.TOO_LARGE.httpStatus()) {
                Intent refused = writes.get(failed);
                errors.record(derivation, range, refused.cause, container, "Cannot write derived document "
                        + refused.id + " to " + container + ": " + failure.message());
                pending.remove(refused);
            } else if (status != StoreErrorCode.PRECONDITION_FAILED.httpStatus()
                    && status != StoreErrorCode.CONFLICT.httpStatus()
                    && status != StoreErrorCode.NOT_FOUND.httpStatus()) {
                throw new IllegalStateException("Cannot write derived documents to " + container + ": status "
                        + status + ", " + failure.message());
            }
        }
        throw new IllegalStateException("Cannot write derived documents to " + container + " partition "
                + partitionKey + ": other writers changed them " + MAX_CONFLICT_RETRIES + " times in a row");
    }

    /** The guarded write for {@code intent}, or empty when the stored version already covers it. */
    private static Optional<BatchOperation> operation(Intent intent, Optional<Item> stored, int range) {
        if (stored.isEmpty()) {
            return intent.isDelete() ? Optional.empty() : Optional.of(BatchOperation.create(intent.json));
        }
        JsonNode lineage = stored.get().tree().path(TargetMapping.LINEAGE_FIELD);
        boolean sameRange = lineage.path("range").isInt() && lineage.path("range").intValue() == range;
        if (sameRange && lineage.path("lsn").asLong(Long.MIN_VALUE) >= intent.lsn) {
            return Optional.empty();
        }
        String etag = stored.get().etag();
        if (intent.isDelete()) {
            if (!intent.sourceId.equals(lineage.path("id").textValue())) {
                return Optional.empty();
            }
            return Optional.of(BatchOperation.delete(intent.id).withIfMatch(etag));
        }
        return Optional.of(BatchOperation.replace(intent.id, intent.json).withIfMatch(etag));
    }

    private static int failedOperation(BatchResult result) {
        for (int index = 0; index < result.results().size(); index++) {
            int status = result.results().get(index).status();
            if (status >= 300 && status != StoreErrorCode.FAILED_DEPENDENCY.httpStatus()) {
                return index;
            }
        }
        throw new IllegalStateException("A failed batch without a failed operation: " + result);
    }
}
