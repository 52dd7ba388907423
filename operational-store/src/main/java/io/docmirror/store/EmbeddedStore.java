package io.docmirror.store;

import io.docmirror.store.internal.GroupCommitter;
import io.docmirror.store.internal.RocksStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The operational store in this process, on RocksDB in a data directory. Thread-safe. Writes to one log partition
 * get their LSNs in the order they are queued; concurrent writes, to any log partitions, share one fsync (group
 * commit), and each returns once the fsync that covers it is done.
 *
 * <p>This class puts together the store's parts, each with one concern: the {@link ContainerCatalog}, the
 * {@link WritePath} with its group commit ({@link ItemWrites}, {@link BatchWrites}), {@link ItemReads} (point reads,
 * scans, snapshots), the {@link ChangeLogReader}, {@link ChangeLogRetention}, the {@link TtlReaper}, and the
 * background {@link StoreMaintenance} that runs the last two.
 */
public final class EmbeddedStore implements StoreClient, SnapshotSource {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    /** Cosmos DB's limits on a transactional batch. */
    public static final int MAX_BATCH_OPERATIONS = 100;
    public static final int MAX_BATCH_BYTES = 2 * 1024 * 1024;

    private final RocksStorage storage;
    private final StoreConfig config;
    private final GroupCommitter committer;
    private final ContainerCatalog catalog;
    private final ItemWrites itemWrites;
    private final BatchWrites batchWrites;
    private final ItemReads itemReads;
    private final ChangeLogReader changeLog;
    private final ChangeLogRetention retention;
    private final TtlReaper reaper;
    private final Optional<StoreMaintenance> maintenance;

    private EmbeddedStore(RocksStorage storage, StoreConfig config, Clock clock, boolean runReaper) {
        this.storage = storage;
        this.config = config;
        this.committer = new GroupCommitter(storage);
        this.catalog = ContainerCatalog.load(storage, committer);
        WritePath writePath = new WritePath(storage, committer, clock);
        this.itemWrites = new ItemWrites(catalog, writePath);
        this.batchWrites = new BatchWrites(catalog, writePath);
        this.itemReads = new ItemReads(storage, catalog, clock);
        this.changeLog = new ChangeLogReader(storage, catalog);
        this.retention = new ChangeLogRetention(storage, catalog, config, clock);
        this.reaper = new TtlReaper(storage, catalog, writePath, clock);
        this.maintenance = runReaper
                ? Optional.of(StoreMaintenance.start(reaper, retention, config))
                : Optional.empty();
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
        return catalog.create(properties);
    }

    @Override
    public ContainerProperties readContainer(String container) {
        return catalog.state(container).properties();
    }

    @Override
    public ContainerProperties replaceContainer(String container, ContainerProperties properties,
            Precondition precondition) {
        return catalog.replace(container, properties, precondition);
    }

    /**
     * What a container's items and change log take on disk, in bytes, after compacting them so that deleted items
     * and trimmed events no longer count (an administrative call: the compaction costs I/O).
     */
    public ContainerUsage containerUsage(String container) {
        return catalog.usage(container);
    }

    @Override
    public List<ContainerProperties> listContainers() {
        return catalog.list();
    }

    @Override
    public void deleteContainer(String container) {
        catalog.delete(container);
    }

    // Items

    @Override
    public Item createItem(String container, byte[] json, Optional<PartitionKey> statedPartitionKey) {
        return itemWrites.create(container, json, statedPartitionKey);
    }

    @Override
    public Upserted upsert(String container, byte[] json, Precondition precondition,
            Optional<PartitionKey> statedPartitionKey) {
        return itemWrites.upsert(container, json, precondition, statedPartitionKey);
    }

    @Override
    public Item replaceItem(String container, PartitionKey partitionKey, String id, byte[] json,
            Precondition precondition) {
        return itemWrites.replace(container, partitionKey, id, json, precondition);
    }

    @Override
    public Item patchItem(String container, PartitionKey partitionKey, String id, List<PatchOperation> operations,
            Precondition precondition) {
        return itemWrites.patch(container, partitionKey, id, operations, precondition);
    }

    @Override
    public void deleteItem(String container, PartitionKey partitionKey, String id, Precondition precondition) {
        itemWrites.delete(container, partitionKey, id, precondition);
    }

    @Override
    public Optional<Item> findItem(String container, PartitionKey partitionKey, String id) {
        return itemReads.find(container, partitionKey, id);
    }

    @Override
    public List<Item> readPartition(String container, PartitionKey partitionKey) {
        return itemReads.readPartition(container, partitionKey);
    }

    @Override
    public ItemPage scanItems(String container, int logPartition, Optional<String> continuation, int maxItems) {
        return itemReads.scanItems(container, logPartition, continuation, maxItems);
    }

    /**
     * Opens a consistent snapshot of a container over all its log partitions (for backfill): exactly the changes up
     * to each partition's LSN in it, whatever is written while it is read; readers may share it across threads.
     * Close it when done.
     */
    @Override
    public StoreSnapshot openSnapshot(String container) {
        return itemReads.openSnapshot(container);
    }

    @Override
    public BatchResult executeBatch(String container, PartitionKey partitionKey, List<BatchOperation> operations) {
        return batchWrites.executeBatch(container, partitionKey, operations);
    }

    @Override
    public BulkResult bulkWrite(String container, List<byte[]> documents, BulkOptions options) {
        return batchWrites.bulkWrite(container, documents, options);
    }

    /**
     * The first half of {@link #bulkWrite}: checks the documents against the container's rules, taking no lock, so
     * that a loader can check its next batch while the store writes the current one.
     *
     * @throws StoreException 404 when there is no such container
     */
    public ValidatedBulk validateBulk(String container, List<byte[]> documents) {
        return batchWrites.validateBulk(container, documents);
    }

    /**
     * The second half of {@link #bulkWrite}: writes the valid documents in one transaction and queues it for the
     * group commit, returning before it is durable. Bulk writes get their LSNs in the order they are queued.
     *
     * @throws StoreException 404 when the container no longer exists, 503 when the store refuses writes
     */
    public QueuedBulk queueBulk(ValidatedBulk documents, BulkOptions options) {
        return batchWrites.queueBulk(documents, options);
    }

    @Override
    public List<BatchResult.OperationResult> executeBulk(String container, List<BulkOperation> operations) {
        return batchWrites.executeBulk(container, operations);
    }

    // The change log

    @Override
    public ChangeLogPage readChangeLog(String container, int logPartition, long afterLsn, int maxEvents) {
        return changeLog.read(container, logPartition, afterLsn, maxEvents);
    }

    /**
     * Removes change events that have passed the log's retention ({@code store.change-log.retention-ms} and
     * {@code -events}), at most {@code maxEvents} per log partition. Readers learn of it at once: the log's start
     * moves before the events go, and a read from before the start fails with {@link StoreErrorCode#GONE}.
     *
     * @return how many events were removed
     */
    public long trimChangeLog(int maxEvents) {
        return retention.trim(maxEvents);
    }

    // TTL

    /**
     * Physically removes up to {@code maxItems} expired items of every container, each with a DELETE marked
     * {@code ttlExpired} in the change log.
     *
     * @return how many items were removed
     */
    public int reapExpired(int maxItems) {
        return reaper.reapExpired(maxItems);
    }

    // Statistics

    /** How writes have shared fsyncs since the store was opened. */
    public GroupCommitStatistics groupCommitStatistics() {
        return committer.statistics();
    }

    /**
     * How many snapshots are open ({@link #openSnapshot}, and those the store's HTTP API holds for its clients): each
     * keeps the item versions it may read on disk until it is closed.
     */
    public long openSnapshots() {
        return storage.openSnapshots();
    }

    /** The events a container's change log holds now (those retention has not removed), over its log partitions. */
    public long changeLogEvents(String container) {
        return changeLog.retainedEvents(container);
    }

    /** RocksDB's estimate of the bytes a container's change log takes now (cheap: nothing is compacted). */
    public long changeLogBytes(String container) {
        return changeLog.approximateBytes(container);
    }

    @Override
    public void close() {
        maintenance.ifPresent(StoreMaintenance::close);
        // Writes being built finish queueing, the queue is written, then no write can start.
        catalog.closeWith(() -> {
            committer.close();
            storage.close();
        });
        log.info("Closed store");
    }
}
