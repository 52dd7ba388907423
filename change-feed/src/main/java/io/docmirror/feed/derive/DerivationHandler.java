package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.feed.FeedErrorCode;
import io.docmirror.feed.FeedException;
import io.docmirror.feed.processor.ChangeFeedContext;
import io.docmirror.feed.processor.ChangeFeedHandler;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BatchResult;
import io.docmirror.store.BulkOperation;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

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
 * before it, so a concurrent writer makes that write retry instead of being overwritten. LSNs are only comparable
 * within one feed range: a target document derived from sources in different partitions (a customer keyed by
 * something other than the source's partition key, say) takes the last write.
 *
 * <p><b>Deletes.</b> A user's delete removes what the source's previous image produced (for targets with
 * {@code delete-with-source}); so does an update for the documents it no longer produces (a removed line item). A
 * delete leaves a target alone when another source document wrote it since. A TTL expiry ({@code ttlExpired}) is
 * not a user's decision and changes nothing: the derived copies outlive the source's retention on purpose.
 *
 * <p><b>Writes.</b> The writes of a batch go to each target container as bulk requests: one durable commit for many
 * target partitions (a batch of orders touches as many customers), each write with its own precondition and result.
 *
 * <p><b>Bad documents.</b> A change a mapping cannot handle ({@link DerivationException}), or a target document the
 * store refuses (bad id, too large), is recorded in {@link DerivationErrors} with the reason; the batch goes on.
 * Other failures propagate, so the processor retries the batch from its checkpoint.
 */
public final class DerivationHandler implements ChangeFeedHandler {
    /** Bounds on one bulk request, so that one commit (and one HTTP body) stays small next to the store's limits. */
    private static final int MAX_BULK_OPERATIONS = 2000;
    private static final long MAX_BULK_BYTES = 8L * 1024 * 1024;
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
        Map<String, List<Intent>> byContainer = new LinkedHashMap<>();
        for (Intent intent : intents.values()) {
            byContainer.computeIfAbsent(intent.container, container -> new ArrayList<>()).add(intent);
        }
        for (Map.Entry<String, List<Intent>> target : byContainer.entrySet()) {
            for (List<Intent> chunk : chunks(target.getValue())) {
                apply(target.getKey(), chunk, range);
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
                        produced.put(key(derived), new Intent(derived.container(), derived.partitionKey(),
                                derived.id(), derived.document().toString(), event.id(), event.lsn(), event));
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

    private static String key(TargetDocument document) {
        return document.container() + "\n" + document.partitionKey().toWire() + "\n" + document.id();
    }

    /** Splits the intents for one target container into bulk requests of bounded size. */
    private static List<List<Intent>> chunks(List<Intent> intents) {
        List<List<Intent>> chunks = new ArrayList<>();
        List<Intent> chunk = new ArrayList<>();
        long bytes = 0;
        for (Intent intent : intents) {
            long size = intent.isDelete() ? 0 : intent.json.length();
            if (!chunk.isEmpty() && (chunk.size() == MAX_BULK_OPERATIONS || bytes + size > MAX_BULK_BYTES)) {
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
     * Writes one chunk of a target container's intents as one bulk request (one durable commit across partitions):
     * reads each target's stored version, drops the writes the LSN guard refuses, and sends the rest guarded by the
     * ETags just read. The writes that lost a race (412, 409, 404) re-read and go again; a document the store refuses
     * is recorded and left out.
     */
    private void apply(String container, List<Intent> chunk, int range) {
        List<Intent> pending = chunk;
        for (int attempt = 0; attempt <= MAX_CONFLICT_RETRIES; attempt++) {
            List<Intent> writes = new ArrayList<>();
            List<BulkOperation> operations = new ArrayList<>();
            for (Intent intent : pending) {
                Optional<Item> stored = store.findItem(container, intent.partitionKey, intent.id);
                Optional<BatchOperation> operation = operation(intent, stored, range);
                if (operation.isPresent()) {
                    writes.add(intent);
                    operations.add(new BulkOperation(intent.partitionKey, operation.get()));
                }
            }
            if (operations.isEmpty()) {
                return;
            }
            List<BatchResult.OperationResult> results = store.executeBulk(container, operations);
            List<Intent> raced = new ArrayList<>();
            for (int index = 0; index < results.size(); index++) {
                Intent write = writes.get(index);
                BatchResult.OperationResult result = results.get(index);
                int status = result.status();
                if (status < 300) {
                    (write.isDelete() ? documentsDeleted : documentsWritten).incrementAndGet();
                } else if (status == StoreErrorCode.BAD_REQUEST.httpStatus()
                        || status == StoreErrorCode.TOO_LARGE.httpStatus()) {
                    errors.record(derivation, range, write.cause, container, "Cannot write derived document "
                            + write.id + " to " + container + ": " + result.message());
                } else if (status == StoreErrorCode.PRECONDITION_FAILED.httpStatus()
                        || status == StoreErrorCode.CONFLICT.httpStatus()
                        || status == StoreErrorCode.NOT_FOUND.httpStatus()) {
                    raced.add(write);
                } else {
                    throw new FeedException(FeedErrorCode.ofStoreStatus(status), "Cannot write derived document "
                            + write.id + " to " + container + ": status " + status + ", " + result.message());
                }
            }
            if (raced.isEmpty()) {
                return;
            }
            pending = raced;
        }
        throw new FeedException(FeedErrorCode.WRITE_CONFLICT, "Cannot write derived documents to " + container
                + ": other writers changed " + pending.size() + " of them " + MAX_CONFLICT_RETRIES
                + " times in a row (first: " + pending.get(0).id + ")");
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
}
