package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.ChangeLogEntry;
import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;
import io.docmirror.store.internal.StoredItem;
import io.docmirror.store.internal.TtlPolicy;
import io.docmirror.store.internal.ValidatedDocument;
import io.docmirror.store.internal.WriteTransaction;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.stream.IntStream;

import static java.util.Objects.requireNonNull;

/**
 * The operational store in this process, on RocksDB in a data directory. Thread-safe. Writes to one log partition
 * are serialised (that is what makes LSNs follow commit order); writes to different log partitions run in parallel
 * and share RocksDB's group commit.
 */
public final class EmbeddedStore implements StoreClient {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);
    private static final byte[] CONTAINER_ID_SEQUENCE = "\u0000container-id-sequence".getBytes(StandardCharsets.UTF_8);

    /** Cosmos DB's limits on a transactional batch. */
    public static final int MAX_BATCH_OPERATIONS = 100;
    public static final int MAX_BATCH_BYTES = 2 * 1024 * 1024;

    private final RocksStorage storage;
    private final StoreConfig config;
    private final Clock clock;
    private final Map<String, ContainerState> containers = new ConcurrentHashMap<>();
    private final Object containerCatalogLock = new Object();
    private final ScheduledExecutorService reaper;

    private EmbeddedStore(RocksStorage storage, StoreConfig config, Clock clock, boolean runReaper) {
        this.storage = storage;
        this.config = config;
        this.clock = clock;
        loadContainers();
        if (runReaper) {
            reaper = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "docmirror-store-maintenance");
                thread.setDaemon(true);
                return thread;
            });
            long interval = config.reaperInterval().toMillis();
            reaper.scheduleWithFixedDelay(this::reapInBackground, interval, interval, TimeUnit.MILLISECONDS);
        }
        else {
            reaper = null;
        }
    }

    /** Opens (or creates) the store in {@code directory} with the system clock and a background TTL reaper. */
    public static EmbeddedStore open(Path directory, StoreConfig config) {
        return open(directory, config, Clock.systemUTC(), true);
    }

    /**
     * @param clock the time writes are stamped with and TTL is judged by (tests inject one)
     * @param runReaper whether a background thread removes expired items; without it, call {@link #reapExpired}
     */
    public static EmbeddedStore open(Path directory, StoreConfig config, Clock clock, boolean runReaper) {
        requireNonNull(directory, "directory is null");
        requireNonNull(config, "config is null");
        requireNonNull(clock, "clock is null");
        log.info("Opening store at {} with {}", directory, config);
        return new EmbeddedStore(RocksStorage.open(directory, config.syncWrites()), config, clock, runReaper);
    }

    public StoreConfig config() {
        return config;
    }

    // Containers

    @Override
    public ContainerProperties createContainer(ContainerProperties properties) {
        requireNonNull(properties, "properties is null");
        synchronized (containerCatalogLock) {
            if (containers.containsKey(properties.id())) {
                throw new StoreException(StoreErrorCode.CONFLICT,
                        "Cannot create container " + properties.id() + ": it already exists");
            }
            byte[] sequence = storage.get(storage.containers(), CONTAINER_ID_SEQUENCE);
            int containerId = sequence == null ? 1 : ByteBuffer.wrap(sequence).getInt() + 1;
            properties = properties.withResourceId(containerResourceId(containerId));
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(storage.containers(), CONTAINER_ID_SEQUENCE, ByteBuffer.allocate(4).putInt(containerId).array());
                batch.put(storage.containers(), properties.id().getBytes(StandardCharsets.UTF_8),
                        StoreJson.mapper().writeValueAsBytes(new StoredContainer(properties, containerId)));
                storage.write(batch);
            }
            catch (RocksDBException | IOException e) {
                throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot create container " + properties.id(), e);
            }
            containers.put(properties.id(), new ContainerState(properties, containerId,
                    new long[properties.logPartitions()], new long[properties.logPartitions()]));
            log.info("Created container {}", properties);
            return properties;
        }
    }

    @Override
    public ContainerProperties readContainer(String container) {
        return state(container).properties();
    }

    /**
     * What a container's items and change log take on disk, in bytes, after compacting them so that deleted items
     * and trimmed events no longer count (an administrative call: the compaction costs I/O).
     */
    public ContainerUsage containerUsage(String container) {
        byte[] prefix = KeyLayout.containerPrefix(state(container).containerId());
        byte[] end = KeyLayout.prefixEnd(prefix);
        return new ContainerUsage(storage.compactedSize(storage.items(), prefix, end),
                storage.compactedSize(storage.changeLog(), prefix, end));
    }

    @Override
    public List<ContainerProperties> listContainers() {
        return containers.values().stream()
                .map(ContainerState::properties)
                .sorted(Comparator.comparing(ContainerProperties::id))
                .toList();
    }

    @Override
    public void deleteContainer(String container) {
        synchronized (containerCatalogLock) {
            ContainerState state = state(container);
            List<ReentrantLock> held = new ArrayList<>();
            try {
                for (int partition = 0; partition < state.logPartitions(); partition++) {
                    state.lock(partition).lock();
                    held.add(state.lock(partition));
                }
                state.markDeleted();
                // The record goes first: after a crash midway, the leftover rows belong to no container and, as
                // container ids are never reused, can never be seen again.
                try (WriteBatch batch = new WriteBatch()) {
                    batch.delete(storage.containers(), container.getBytes(StandardCharsets.UTF_8));
                    storage.write(batch);
                }
                catch (RocksDBException e) {
                    throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot delete container " + container, e);
                }
                byte[] prefix = KeyLayout.containerPrefix(state.containerId());
                byte[] end = KeyLayout.prefixEnd(prefix);
                for (var family : List.of(storage.items(), storage.changeLog(), storage.expiry(), storage.logEnds())) {
                    storage.deleteRange(family, prefix, end);
                }
                containers.remove(container);
            }
            finally {
                held.forEach(ReentrantLock::unlock);
            }
            log.info("Deleted container {}", container);
        }
    }

    // Items

    @Override
    public Item createItem(String container, byte[] json) {
        ContainerState state = state(container);
        ValidatedDocument document = state.validator().validate(json);
        return inPartition(state, document.partitionKey(), transaction -> transaction.create(document));
    }

    @Override
    public Item upsertItem(String container, byte[] json, Precondition precondition) {
        ContainerState state = state(container);
        ValidatedDocument document = state.validator().validate(json);
        return inPartition(state, document.partitionKey(), transaction -> transaction.upsert(document, precondition));
    }

    @Override
    public Item replaceItem(String container, PartitionKey partitionKey, String id, byte[] json,
            Precondition precondition) {
        ContainerState state = state(container);
        ValidatedDocument document = state.validator().validate(json);
        return inPartition(state, partitionKey,
                transaction -> transaction.replace(partitionKey, id, document, precondition));
    }

    @Override
    public Item patchItem(String container, PartitionKey partitionKey, String id, List<PatchOperation> operations,
            Precondition precondition) {
        ContainerState state = state(container);
        return inPartition(state, partitionKey,
                transaction -> transaction.patch(partitionKey, id, operations, precondition));
    }

    @Override
    public void deleteItem(String container, PartitionKey partitionKey, String id, Precondition precondition) {
        ContainerState state = state(container);
        inPartition(state, partitionKey, transaction -> {
            transaction.delete(partitionKey, id, precondition);
            return null;
        });
    }

    @Override
    public Optional<Item> findItem(String container, PartitionKey partitionKey, String id) {
        ContainerState state = state(container);
        try (WriteTransaction reader = new WriteTransaction(storage, state, clock.millis())) {
            return reader.read(partitionKey, id);
        }
    }

    @Override
    public List<Item> readPartition(String container, PartitionKey partitionKey) {
        ContainerState state = state(container);
        byte[] prefix = KeyLayout.partitionPrefix(state.containerId(), state.logPartitionOf(partitionKey),
                partitionKey.encoded());
        long nowSeconds = Math.floorDiv(clock.millis(), 1000);
        List<Item> items = new ArrayList<>();
        try (WriteTransaction reader = new WriteTransaction(storage, state, clock.millis());
                var iterator = storage.iterate(storage.items(), prefix, KeyLayout.prefixEnd(prefix))) {
            for (; iterator.valid(); iterator.next()) {
                StoredItem stored = StoredItem.decode(iterator.value());
                if (!TtlPolicy.isExpired(state.expiresAt(stored), nowSeconds)) {
                    items.add(reader.toItem(iterator.key(), stored));
                }
            }
        }
        return items;
    }

    @Override
    public ItemPage scanItems(String container, int logPartition, Optional<String> continuation, int maxItems) {
        ContainerState state = state(container);
        checkLogPartition(state, logPartition);
        if (maxItems < 1) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot scan container " + container
                    + ": max items " + maxItems + " must be at least 1");
        }
        // Read the log end first: every change up to it is already in the items the iterator sees.
        long logEnd = state.logEnd(logPartition);
        byte[] prefix = KeyLayout.logPartitionPrefix(state.containerId(), logPartition);
        byte[] from = prefix;
        if (continuation.isPresent()) {
            from = decodeContinuation(container, prefix, continuation.get());
        }
        long nowSeconds = Math.floorDiv(clock.millis(), 1000);
        List<Item> items = new ArrayList<>();
        byte[] lastKey = null;
        try (WriteTransaction reader = new WriteTransaction(storage, state, clock.millis());
                var iterator = storage.iterate(storage.items(), from, KeyLayout.prefixEnd(prefix))) {
            for (; iterator.valid() && items.size() < maxItems; iterator.next()) {
                lastKey = iterator.key();
                StoredItem stored = StoredItem.decode(iterator.value());
                if (!TtlPolicy.isExpired(state.expiresAt(stored), nowSeconds)) {
                    items.add(reader.toItem(lastKey, stored));
                }
            }
            boolean more = iterator.valid();
            Optional<String> next = more && lastKey != null
                    ? Optional.of(Base64.getUrlEncoder().withoutPadding().encodeToString(successor(lastKey)))
                    : Optional.empty();
            return new ItemPage(items, next, logEnd);
        }
    }

    /**
     * Opens a consistent snapshot of one log partition's live items (for backfill): exactly the changes up to the
     * snapshot's LSN, whatever is written while it is read. Only the embedded store offers it; close it when done.
     */
    public PartitionSnapshot snapshot(String container, int logPartition) {
        ContainerState state = state(container);
        checkLogPartition(state, logPartition);
        RocksStorage.Snapshot snapshot = storage.snapshot();
        try {
            // The log end is written in the same atomic batch as the items, so the snapshot holds both as of one LSN.
            byte[] end = snapshot.get(storage.logEnds(), KeyLayout.logEndKey(state.containerId(), logPartition));
            long lsn = end == null ? 0 : KeyLayout.readLong(end);
            byte[] prefix = KeyLayout.logPartitionPrefix(state.containerId(), logPartition);
            RocksStorage.BoundedIterator iterator = snapshot.iterate(storage.items(), prefix,
                    KeyLayout.prefixEnd(prefix));
            long nowSeconds = Math.floorDiv(clock.millis(), 1000);
            return new PartitionSnapshot(container, logPartition, lsn, new PartitionSnapshot.ItemCursor() {
                @Override
                public ChangeEvent next() {
                    for (; iterator.valid(); iterator.next()) {
                        StoredItem stored = StoredItem.decode(iterator.value());
                        if (TtlPolicy.isExpired(state.expiresAt(stored), nowSeconds)) {
                            continue;
                        }
                        byte[] key = iterator.key();
                        ChangeEvent item = ChangeEvent.ofCurrentVersion(container,
                                PartitionKey.decode(KeyLayout.itemPartitionKey(key)).toJson(), KeyLayout.itemId(key),
                                stored.createdLsn() == stored.lsn(), stored.lsn(), stored.tsSeconds() * 1000,
                                stored.json());
                        iterator.next();
                        return item;
                    }
                    return null;
                }

                @Override
                public void close() {
                    iterator.close();
                    snapshot.close();
                }
            });
        } catch (RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    @Override
    public BatchResult executeBatch(String container, PartitionKey partitionKey, List<BatchOperation> operations) {
        ContainerState state = state(container);
        if (operations.isEmpty() || operations.size() > MAX_BATCH_OPERATIONS) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot run batch on container " + container
                    + ": it has " + operations.size() + " operations; a batch has 1 to " + MAX_BATCH_OPERATIONS);
        }
        long bytes = operations.stream().mapToLong(EmbeddedStore::operationBytes).sum();
        if (bytes > MAX_BATCH_BYTES) {
            throw new StoreException(StoreErrorCode.TOO_LARGE, "Cannot run batch on container " + container
                    + ": its documents total " + bytes + " bytes, over the limit of " + MAX_BATCH_BYTES + " bytes (2 MB)");
        }
        // Validate every document before taking the lock; a bad one fails the batch like any failing operation.
        List<ValidatedDocument> documents = new ArrayList<>();
        for (int index = 0; index < operations.size(); index++) {
            BatchOperation operation = operations.get(index);
            try {
                documents.add(operation.document() == null ? null : validateForBatch(state, partitionKey, operation));
            }
            catch (StoreException e) {
                return failedBatch(operations.size(), index, e);
            }
        }
        return inPartition(state, partitionKey, transaction -> {
            List<BatchResult.OperationResult> results = new ArrayList<>();
            for (int index = 0; index < operations.size(); index++) {
                try {
                    results.add(apply(transaction, partitionKey, operations.get(index), documents.get(index)));
                }
                catch (StoreException e) {
                    return failedBatch(operations.size(), index, e);
                }
            }
            transaction.commit();
            return new BatchResult(results);
        }, false);
    }

    @Override
    public BulkResult bulkWrite(String container, List<byte[]> documents, BulkOptions options) {
        ContainerState state = state(container);
        List<BulkResult.Failure> failures = new ArrayList<>();
        List<ValidatedDocument> valid = new ArrayList<>(documents.size());
        List<Integer> positions = new ArrayList<>(documents.size());
        for (Validation validation : validateInParallel(state, documents)) {
            if (validation.failure() == null) {
                valid.add(validation.document());
                positions.add(validation.index());
                continue;
            }
            failures.add(new BulkResult.Failure(validation.index(), validation.failure().httpStatus(),
                    validation.failure().getMessage()));
            if (options.stopAtFirstFailure()) {
                break;
            }
        }
        int written = inPartitions(state, valid.stream().map(ValidatedDocument::partitionKey).toList(), transaction -> {
            transaction.readAhead(valid);
            int stored = 0;
            for (int index = 0; index < valid.size(); index++) {
                try {
                    if (options.upsert()) {
                        transaction.upsert(valid.get(index), Precondition.NONE);
                    }
                    else {
                        transaction.create(valid.get(index));
                    }
                    stored++;
                }
                catch (StoreException e) {
                    rethrowIfPartial(e);
                    failures.add(new BulkResult.Failure(positions.get(index), e.httpStatus(), e.getMessage()));
                    if (options.stopAtFirstFailure()) {
                        break;
                    }
                }
            }
            return stored;
        });
        failures.sort(Comparator.comparingInt(BulkResult.Failure::index));
        return new BulkResult(written, failures);
    }

    /** One document of a bulk write, checked: either the document or why it was refused. */
    private record Validation(int index, ValidatedDocument document, StoreException failure) {
    }

    /**
     * Validates the documents on every core (parsing and re-encoding is most of a bulk load's work, and each
     * document is checked on its own), in their order.
     */
    private static List<Validation> validateInParallel(ContainerState state, List<byte[]> documents) {
        return IntStream.range(0, documents.size()).parallel().mapToObj(index -> {
            try {
                return new Validation(index, state.validator().validate(documents.get(index)), null);
            }
            catch (StoreException e) {
                return new Validation(index, null, e);
            }
        }).toList();
    }

    @Override
    public List<BatchResult.OperationResult> executeBulk(String container, List<BulkOperation> operations) {
        ContainerState state = state(container);
        if (operations.isEmpty()) {
            return List.of();
        }
        // Validate every document before taking the locks; a bad one fails alone.
        BatchResult.OperationResult[] results = new BatchResult.OperationResult[operations.size()];
        List<ValidatedDocument> documents = new ArrayList<>(operations.size());
        for (int index = 0; index < operations.size(); index++) {
            BulkOperation bulk = operations.get(index);
            ValidatedDocument document = null;
            if (bulk.operation().document() != null) {
                try {
                    document = validateForBatch(state, bulk.partitionKey(), bulk.operation());
                }
                catch (StoreException e) {
                    results[index] = failed(index, e);
                }
            }
            documents.add(document);
        }
        inPartitions(state, operations.stream().map(BulkOperation::partitionKey).toList(), transaction -> {
            for (int index = 0; index < operations.size(); index++) {
                if (results[index] != null) {
                    continue;
                }
                BulkOperation bulk = operations.get(index);
                try {
                    results[index] = apply(transaction, bulk.partitionKey(), bulk.operation(), documents.get(index));
                }
                catch (StoreException e) {
                    rethrowIfPartial(e);
                    results[index] = failed(index, e);
                }
            }
            return null;
        });
        return List.of(results);
    }

    // The change log

    @Override
    public ChangeLogPage readChangeLog(String container, int logPartition, long afterLsn, int maxEvents) {
        ContainerState state = state(container);
        checkLogPartition(state, logPartition);
        long logEnd = state.logEnd(logPartition);
        long logStart = state.logStart(logPartition);
        checkRetained(state, logPartition, afterLsn);
        List<ChangeEvent> events = new ArrayList<>();
        byte[] from = KeyLayout.changeLogKey(state.containerId(), logPartition, Math.max(0, afterLsn) + 1);
        byte[] until = KeyLayout.prefixEnd(KeyLayout.logPartitionPrefix(state.containerId(), logPartition));
        try (var iterator = storage.iterate(storage.changeLog(), from, until)) {
            for (; iterator.valid() && events.size() < maxEvents; iterator.next()) {
                if (KeyLayout.changeLogLsn(iterator.key()) > logEnd) {
                    break;
                }
                events.add(ChangeLogEntry.decode(iterator.value()));
            }
        }
        // Retention may have removed events while we read; then what we read has a gap, and the reader must know.
        checkRetained(state, logPartition, afterLsn);
        return new ChangeLogPage(logPartition, events, logStart, logEnd);
    }

    private static void checkRetained(ContainerState state, int logPartition, long afterLsn) {
        long logStart = state.logStart(logPartition);
        if (afterLsn < logStart) {
            throw new StoreException(StoreErrorCode.GONE, "Cannot read the change log of container " + state.name()
                    + ", log partition " + logPartition + ", after LSN " + afterLsn + ": events up to LSN " + logStart
                    + " have passed the change log's retention; the oldest available position is after LSN "
                    + logStart);
        }
    }

    /**
     * Removes change events that have passed the log's retention ({@code store.change-log.retention-ms} and
     * {@code -events}), at most {@code maxEvents} per log partition. Readers learn of it at once: the log's start
     * moves before the events go, and a read from before the start fails with {@link StoreErrorCode#GONE}.
     *
     * @return how many events were removed
     */
    public long trimChangeLog(int maxEvents) {
        long removed = 0;
        long cutoff = config.changeLogRetentionMs() < 0 ? Long.MIN_VALUE : clock.millis() - config.changeLogRetentionMs();
        for (ContainerState state : containers.values()) {
            for (int partition = 0; partition < state.properties().logPartitions(); partition++) {
                long start = state.logStart(partition);
                long end = state.logEnd(partition);
                long newStart = config.changeLogRetentionEvents() < 0
                        ? start
                        : Math.max(start, end - config.changeLogRetentionEvents());
                newStart = Math.min(newStart, start + maxEvents);
                if (cutoff != Long.MIN_VALUE) {
                    newStart = Math.max(newStart, lastEventBefore(state, partition, newStart, end,
                            Math.min(end, start + maxEvents), cutoff));
                }
                if (newStart > start) {
                    state.advanceLogStart(partition, newStart);
                    try (WriteBatch batch = new WriteBatch()) {
                        batch.deleteRange(storage.changeLog(), KeyLayout.changeLogKey(state.containerId(), partition,
                                start + 1), KeyLayout.changeLogKey(state.containerId(), partition, newStart + 1));
                        batch.put(storage.logEnds(), KeyLayout.logStartKey(state.containerId(), partition),
                                KeyLayout.longValue(newStart));
                        storage.write(batch);
                    }
                    catch (org.rocksdb.RocksDBException e) {
                        throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot trim the change log of "
                                + state.name() + ": " + e.getMessage(), e);
                    }
                    removed += newStart - start;
                }
            }
        }
        return removed;
    }

    /** The LSN of the last event after {@code from}, up to {@code limit}, committed before {@code cutoff}. */
    private long lastEventBefore(ContainerState state, int partition, long from, long end, long limit, long cutoff) {
        long last = from;
        byte[] first = KeyLayout.changeLogKey(state.containerId(), partition, from + 1);
        byte[] until = KeyLayout.changeLogKey(state.containerId(), partition, Math.min(end, limit) + 1);
        try (var iterator = storage.iterate(storage.changeLog(), first, until)) {
            // Events of a partition are committed in LSN order, so their times only rise: stop at the first young one.
            for (; iterator.valid(); iterator.next()) {
                if (ChangeLogEntry.ts(iterator.value()) >= cutoff) {
                    break;
                }
                last = KeyLayout.changeLogLsn(iterator.key());
            }
        }
        return last;
    }

    // TTL

    /**
     * Physically removes up to {@code maxItems} expired items of every container, each with a DELETE marked
     * {@code ttlExpired} in the change log.
     *
     * @return how many items were removed
     */
    public int reapExpired(int maxItems) {
        int removed = 0;
        long nowSeconds = Math.floorDiv(clock.millis(), 1000);
        for (ContainerState state : containers.values()) {
            if (state.properties().defaultTtl() == null || removed >= maxItems) {
                continue;
            }
            byte[] from = KeyLayout.containerPrefix(state.containerId());
            byte[] until = KeyLayout.expiryKey(state.containerId(), nowSeconds + 1, new byte[0]);
            Map<Integer, List<byte[]>> byPartition = new TreeMap<>();
            try (var iterator = storage.iterate(storage.expiry(), from, until)) {
                for (int count = removed; iterator.valid() && count < maxItems; iterator.next(), count++) {
                    byte[] itemKey = KeyLayout.expiryItemKey(iterator.key());
                    byPartition.computeIfAbsent(KeyLayout.itemLogPartition(itemKey), partition -> new ArrayList<>())
                            .add(iterator.key());
                }
            }
            for (Map.Entry<Integer, List<byte[]>> entry : byPartition.entrySet()) {
                ReentrantLock lock = state.lock(entry.getKey());
                lock.lock();
                try (WriteTransaction transaction = new WriteTransaction(storage, state, clock.millis())) {
                    if (state.isDeleted()) {
                        break;
                    }
                    for (byte[] expiryKey : entry.getValue()) {
                        if (transaction.expire(KeyLayout.expiryItemKey(expiryKey))) {
                            removed++;
                        }
                        else {
                            transaction.dropExpiryEntry(expiryKey);
                        }
                    }
                    transaction.commit();
                }
                finally {
                    lock.unlock();
                }
            }
        }
        return removed;
    }

    private void reapInBackground() {
        try {
            int removed;
            do {
                removed = reapExpired(config.reaperBatchSize());
                if (removed > 0) {
                    log.debug("TTL reaper removed {} expired items", removed);
                }
            }
            while (removed >= config.reaperBatchSize());
            long trimmed;
            do {
                trimmed = trimChangeLog(config.reaperBatchSize());
                if (trimmed > 0) {
                    log.debug("Change-log retention removed {} events", trimmed);
                }
            }
            while (trimmed > 0);
        }
        catch (RuntimeException e) {
            // Retried at the next interval; expired items stay invisible to reads meanwhile.
            log.error("Store maintenance (TTL reaper, change-log retention) failed, retrying in {} ms",
                    config.reaperInterval().toMillis(), e);
        }
    }

    @Override
    public void close() {
        if (reaper != null) {
            reaper.shutdownNow();
            try {
                if (!reaper.awaitTermination(10, TimeUnit.SECONDS)) {
                    log.warn("TTL reaper did not stop within 10 s");
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (containerCatalogLock) {
            // Wait for writes in flight: each holds its log partition's lock until its commit is done.
            for (ContainerState state : containers.values()) {
                for (int partition = 0; partition < state.logPartitions(); partition++) {
                    state.lock(partition).lock();
                }
            }
            storage.close();
        }
        log.info("Closed store");
    }

    // Internals

    private <T> T inPartition(ContainerState state, PartitionKey partitionKey, Function<WriteTransaction, T> work) {
        return inPartition(state, partitionKey, work, true);
    }

    private <T> T inPartition(ContainerState state, PartitionKey partitionKey, Function<WriteTransaction, T> work,
            boolean commit) {
        ReentrantLock lock = state.lock(state.logPartitionOf(partitionKey));
        lock.lock();
        try (WriteTransaction transaction = new WriteTransaction(storage, state, clock.millis())) {
            checkNotDeleted(state);
            T result = work.apply(transaction);
            if (commit) {
                transaction.commit();
            }
            return result;
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code work} in one transaction over the log partitions of {@code partitionKeys} and commits it. The locks
     * are taken in log partition order, so that two writers over overlapping partitions cannot deadlock.
     */
    private <T> T inPartitions(ContainerState state, List<PartitionKey> partitionKeys, Function<WriteTransaction, T> work) {
        TreeMap<Integer, ReentrantLock> locks = new TreeMap<>();
        for (PartitionKey partitionKey : partitionKeys) {
            int partition = state.logPartitionOf(partitionKey);
            locks.putIfAbsent(partition, state.lock(partition));
        }
        locks.values().forEach(ReentrantLock::lock);
        try (WriteTransaction transaction = new WriteTransaction(storage, state, clock.millis())) {
            checkNotDeleted(state);
            T result = work.apply(transaction);
            transaction.commit();
            return result;
        }
        finally {
            locks.descendingMap().values().forEach(ReentrantLock::unlock);
        }
    }

    private BatchResult.OperationResult apply(WriteTransaction transaction, PartitionKey partitionKey,
            BatchOperation operation, ValidatedDocument document) {
        Precondition precondition = Precondition.ofNullable(operation.ifMatch());
        return switch (operation.type()) {
            case CREATE -> written(201, transaction.create(document));
            case UPSERT -> written(200, transaction.upsert(document, precondition));
            case REPLACE -> written(200, transaction.replace(partitionKey, requireId(operation), document, precondition));
            case PATCH -> written(200, transaction.patch(partitionKey, requireId(operation),
                    operation.patch() == null ? List.of() : operation.patch(), precondition));
            case DELETE -> {
                transaction.delete(partitionKey, requireId(operation), precondition);
                yield new BatchResult.OperationResult(204, null, null, null);
            }
            case READ -> {
                Item item = transaction.read(partitionKey, requireId(operation)).orElseThrow(() -> new StoreException(
                        StoreErrorCode.NOT_FOUND, "Cannot read item '" + operation.id() + "': it does not exist"));
                yield new BatchResult.OperationResult(200, item.etag(), item, null);
            }
        };
    }

    private static BatchResult.OperationResult written(int status, Item item) {
        return new BatchResult.OperationResult(status, item.etag(), item, null);
    }

    private static String requireId(BatchOperation operation) {
        if (operation.id() == null) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot run batch operation " + operation.type().wireName() + ": it needs an id");
        }
        return operation.id();
    }

    private static ValidatedDocument validateForBatch(ContainerState state, PartitionKey partitionKey,
            BatchOperation operation) {
        ValidatedDocument document = state.validator().validate(operation.document().getBytes(StandardCharsets.UTF_8));
        if (!document.partitionKey().equals(partitionKey)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot write item '" + document.id()
                    + "' to container " + state.name() + ": it has partition key " + document.partitionKey().toWire()
                    + " but the operation is for " + partitionKey.toWire());
        }
        return document;
    }

    private static BatchResult failedBatch(int size, int failedIndex, StoreException failure) {
        List<BatchResult.OperationResult> results = new ArrayList<>();
        for (int index = 0; index < size; index++) {
            results.add(index == failedIndex
                    ? failed(index, failure)
                    : new BatchResult.OperationResult(StoreErrorCode.FAILED_DEPENDENCY.httpStatus(), null, null,
                            "Operation " + (index + 1) + " was not applied: operation " + (failedIndex + 1) + " failed"));
        }
        return new BatchResult(results);
    }

    /**
     * An operation refused by a rule (4xx) changed nothing, so the others of its transaction may still commit; a
     * failure of the store itself (5xx) may have left half an operation in the transaction, so none of it may.
     */
    private static void rethrowIfPartial(StoreException failure) {
        if (failure.httpStatus() >= 500) {
            throw failure;
        }
    }

    private static BatchResult.OperationResult failed(int index, StoreException failure) {
        return new BatchResult.OperationResult(failure.httpStatus(), null, null,
                "Operation " + (index + 1) + ": " + failure.getMessage());
    }

    private static long operationBytes(BatchOperation operation) {
        return operation.document() == null ? 0 : operation.document().getBytes(StandardCharsets.UTF_8).length;
    }

    private ContainerState state(String container) {
        requireNonNull(container, "container is null");
        ContainerState state = containers.get(container);
        if (state == null) {
            throw new StoreException(StoreErrorCode.NOT_FOUND, "Container " + container + " does not exist");
        }
        return state;
    }

    private static void checkNotDeleted(ContainerState state) {
        if (state.isDeleted()) {
            throw new StoreException(StoreErrorCode.NOT_FOUND, "Container " + state.name() + " does not exist");
        }
    }

    private static void checkLogPartition(ContainerState state, int logPartition) {
        if (logPartition < 0 || logPartition >= state.logPartitions()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + state.name() + " has log partitions 0 to "
                    + (state.logPartitions() - 1) + ", not " + logPartition);
        }
    }

    private static byte[] decodeContinuation(String container, byte[] prefix, String continuation) {
        byte[] key;
        try {
            key = Base64.getUrlDecoder().decode(continuation);
        }
        catch (IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot scan container " + container + ": continuation '" + continuation + "' is malformed", e);
        }
        if (key.length < prefix.length || !ByteBuffer.wrap(key, 0, prefix.length).equals(ByteBuffer.wrap(prefix))) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot scan container " + container
                    + ": continuation '" + continuation + "' belongs to another container or log partition");
        }
        return key;
    }

    /** The smallest key after {@code key}: the key with a zero byte appended. */
    private static byte[] successor(byte[] key) {
        return java.util.Arrays.copyOf(key, key.length + 1);
    }

    private void loadContainers() {
        try (var iterator = storage.iterate(storage.containers(), new byte[0], new byte[] {(byte) 0xff})) {
            for (; iterator.valid(); iterator.next()) {
                if (java.util.Arrays.equals(iterator.key(), CONTAINER_ID_SEQUENCE)) {
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
                ContainerProperties properties = stored.properties()
                        .withResourceId(containerResourceId(stored.containerId()));
                containers.put(properties.id(), new ContainerState(properties, stored.containerId(), logEnds,
                        logStarts));
            }
        }
        catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot read the store's container catalog", e);
        }
    }

    /** A container's catalog record. */
    record StoredContainer(ContainerProperties properties, int containerId) {
    }

    /** A container's {@code _rid}: its internal id, which is never given twice, in URL-safe Base64. */
    private static String containerResourceId(int containerId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(ByteBuffer.allocate(4).putInt(containerId)
                .array());
    }
}
