package io.docmirror.feed.kafka;

import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.FeedErrorCode;
import io.docmirror.feed.FeedException;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Tails a container's change feed (all versions and deletes) and writes each change to the container's Kafka topic
 * in Debezium's change-event envelope ({@link ChangeEnvelope}), keyed by the item's id and partition key so that an
 * item's changes stay in one partition, in order. Each delete is followed by a tombstone, so that a compacted topic
 * forgets the item.
 *
 * <p>Exactly once, in the manner of Kafka Connect's exactly-once source tasks: a transactional producer writes a
 * batch of changes and the feed checkpoint that covers them (to the compacted offsets topic) in one transaction.
 * A new publisher first fences any earlier one with the same transactional id, which aborts its open transaction;
 * it then reads the last committed checkpoint and goes on from there. A crash anywhere therefore neither loses nor
 * duplicates a change for {@code read_committed} consumers. When the broker is unreachable the publisher waits and
 * starts again from the committed checkpoint.
 *
 * <p>A container deleted and created again under the same name is another container, whose LSNs start again from 1:
 * the publisher checks the container's {@code _rid} before each commit and while idle, and publishes a new one from
 * its first change, each event naming the {@code _rid} it came from ({@code source.containerRid}). A container that
 * is gone ends {@link #run}.
 */
public final class KafkaChangePublisher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaChangePublisher.class);
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);

    private final StoreClient store;
    private final String container;
    private final KafkaBridgeConfig config;
    private final String topic;
    private final byte[] checkpointKey;
    private final Clock clock;
    private volatile boolean running = true;
    /** What {@link #activity} reports: written by the publishing thread, read by any (a metrics scrape). */
    private final AtomicLong eventsPublished = new AtomicLong();
    private final AtomicLong transactionsCommitted = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile String committed;
    /** What ended {@link #run} with a failure; null while it runs, or when it was closed. */
    private volatile FeedErrorCode stoppedBy;

    public KafkaChangePublisher(StoreClient store, String container, KafkaBridgeConfig config) {
        this(store, container, config, Clock.systemUTC());
    }

    /** @param clock stamps each event with when it was published (the envelope's {@code ts_ms}) */
    public KafkaChangePublisher(StoreClient store, String container, KafkaBridgeConfig config, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.container = requireNonNull(container, "container is null");
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.topic = config.topic(container);
        this.checkpointKey = ("publisher/" + container).getBytes(StandardCharsets.UTF_8);
    }

    /** Publishes until {@link #close} is called, riding out broker outages. */
    public void run() throws InterruptedException {
        publish(false);
    }

    /**
     * Publishes every change committed so far and returns, for batch jobs and tests.
     *
     * @return how many changes were published
     */
    public long publishAvailable() throws InterruptedException {
        return publish(true);
    }

    @Override
    public void close() {
        running = false;
    }

    /**
     * The code of the failure that stopped this publisher ({@code PUBLISHER_FENCED} when another publisher of the
     * container took over); empty while it runs, or when it was closed.
     */
    public Optional<FeedErrorCode> stoppedBy() {
        return Optional.ofNullable(stoppedBy);
    }

    /** What this publisher has done since it was created; safe to call from any thread. */
    public PublisherActivity activity() {
        return new PublisherActivity(container, eventsPublished.get(), transactionsCommitted.get(), failures.get(),
                Optional.ofNullable(committed), stoppedBy());
    }

    private long publish(boolean untilCaughtUp) throws InterruptedException {
        try {
            return publishUntilStopped(untilCaughtUp);
        } catch (RuntimeException e) {
            stoppedBy = FeedErrorCode.of(e);
            throw e;
        }
    }

    /**
     * Publishes, starting again from the committed checkpoint after a Kafka failure ({@code BROKER_UNAVAILABLE}).
     *
     * @throws FeedException with {@code PUBLISHER_FENCED} when another publisher of the container took over
     */
    private long publishUntilStopped(boolean untilCaughtUp) throws InterruptedException {
        long published = 0;
        while (running) {
            try (KafkaProducer<byte[], byte[]> producer = newProducer()) {
                ensureTopics();
                producer.initTransactions();
                Outcome outcome = publishContainer(producer, untilCaughtUp);
                published += outcome.published();
                if (!outcome.recreated()) {
                    return published;
                }
            } catch (ProducerFencedException e) {
                throw new FeedException(FeedErrorCode.PUBLISHER_FENCED, "Another publisher of container " + container
                        + " took over (same transactional id); this one stops", e);
            } catch (KafkaException e) {
                failures.incrementAndGet();
                // Closing the producer abandons the open transaction; the next one aborts it when it fences us.
                log.warn("Publishing {} to Kafka failed ({}); starting again from the committed checkpoint in {} ms",
                        container, FeedErrorCode.BROKER_UNAVAILABLE, RETRY_BACKOFF.toMillis(), e);
                Thread.sleep(RETRY_BACKOFF.toMillis());
            }
        }
        return published;
    }

    /** How a run of {@link #publishContainer} ended: with the container deleted and created again, or stopped. */
    private record Outcome(long published, boolean recreated) {
    }

    /**
     * Publishes the container as it is now, from the committed checkpoint when that is a position in it, until it
     * is stopped, caught up ({@code untilCaughtUp}), or turns out to be deleted and created again.
     *
     * @throws io.docmirror.store.StoreException with {@code NOT_FOUND} when the container is gone
     */
    private Outcome publishContainer(KafkaProducer<byte[], byte[]> producer, boolean untilCaughtUp)
            throws InterruptedException {
        ContainerProperties properties = store.readContainer(container);
        ChangeEnvelope envelope = new ChangeEnvelope(config, properties);
        int partitions = producer.partitionsFor(topic).size();
        PublisherCheckpoint checkpoint = readCheckpoint();
        StartFrom start = StartFrom.beginning();
        if (checkpoint != null && checkpoint.belongsTo(properties.resourceId())) {
            start = StartFrom.continuation(checkpoint.continuation());
        } else if (checkpoint != null) {
            log.warn("Container {} was deleted and created again (_rid {} is now {}): publishing the new container "
                    + "from its first change", container, checkpoint.containerRid(), properties.resourceId());
        }
        ChangeFeedReader reader = ChangeFeedReader.open(store, container, ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                start);
        log.info("Publishing changes of {} to Kafka topic {} from {}", container, topic,
                start instanceof StartFrom.Beginning ? "the beginning" : "the committed checkpoint");
        long published = 0;
        while (running) {
            ChangeFeedPage page = reader.readNext(config.maxEventsPerTransaction());
            if (!page.events().isEmpty()) {
                producer.beginTransaction();
                long now = clock.millis();
                for (ChangeEvent event : page.events()) {
                    send(producer, envelope, partitions, event, now);
                }
                producer.send(new ProducerRecord<>(config.offsetsTopic(), checkpointKey,
                        new PublisherCheckpoint(properties.resourceId(), page.continuation()).encode()));
                // Every change of the page was read before this look-up: when it still finds the container the
                // reader was opened on, none of them is a later container's (whose LSNs start again from 1).
                if (isRecreated(properties)) {
                    producer.abortTransaction();
                    return new Outcome(published, true);
                }
                producer.commitTransaction();
                published += page.events().size();
                eventsPublished.addAndGet(page.events().size());
                transactionsCommitted.incrementAndGet();
                committed = page.continuation();
            }
            if (page.caughtUp()) {
                // A container created again reads as nothing new until its LSNs pass the old ones: look, too (a page
                // with changes was looked at before its commit).
                if (page.events().isEmpty() && isRecreated(properties)) {
                    return new Outcome(published, true);
                }
                if (untilCaughtUp) {
                    break;
                }
                Thread.sleep(config.pollInterval().toMillis());
            }
        }
        return new Outcome(published, false);
    }

    /**
     * Whether the container is another one now than {@code properties}, under the same name: another {@code _rid}.
     *
     * @throws io.docmirror.store.StoreException with {@code NOT_FOUND} when it is gone
     */
    private boolean isRecreated(ContainerProperties properties) {
        return !ContainerProperties.mayBeSameContainer(store.readContainer(container).resourceId(),
                properties.resourceId());
    }

    /** Sends a change, and after a delete its tombstone, to the item's partition. */
    private void send(KafkaProducer<byte[], byte[]> producer, ChangeEnvelope envelope, int partitions,
            ChangeEvent event, long now) {
        int partition = partitionOf(event, partitions);
        byte[] key = envelope.key(event);
        producer.send(new ProducerRecord<>(topic, partition, key, envelope.value(event, now)));
        if (event.operation() == Operation.DELETE) {
            producer.send(new ProducerRecord<>(topic, partition, key, null));
        }
    }

    /**
     * The partition of an item's changes: where Kafka's default partitioner puts the key without schema (murmur2 of
     * its bytes), so the same with and without {@code kafka.connect-schemas}.
     */
    static int partitionOf(ChangeEvent event, int partitions) {
        return Utils.toPositive(Utils.murmur2(ChangeEnvelope.keyPayload(event))) % partitions;
    }

    private KafkaProducer<byte[], byte[]> newProducer() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "docmirror-publisher-" + container,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private void ensureTopics() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()))) {
            create(admin, new NewTopic(topic, config.topicPartitions(), (short) -1));
            create(admin, new NewTopic(config.offsetsTopic(), 1, (short) -1)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
        }
    }

    private static void create(Admin admin, NewTopic topic) {
        try {
            admin.createTopics(List.of(topic)).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new KafkaException("Cannot create topic " + topic.name(), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted while creating topic " + topic.name(), e);
        }
    }

    /** The last committed checkpoint of this publisher, or {@code null} before its first transaction. */
    private PublisherCheckpoint readCheckpoint() {
        TopicPartition partition = new TopicPartition(config.offsetsTopic(), 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            byte[] checkpoint = null;
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (java.util.Arrays.equals(record.key(), checkpointKey)) {
                        checkpoint = record.value();
                    }
                }
            }
            return checkpoint == null ? null : PublisherCheckpoint.decode(checkpoint);
        }
    }
}
