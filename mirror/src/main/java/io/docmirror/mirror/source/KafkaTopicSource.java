package io.docmirror.mirror.source;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaChangeFeedReader;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A container's changes from its Kafka topic, as {@code KafkaChangePublisher} wrote them. The checkpoint holds the
 * next offset of every topic partition, so a restart reads on exactly where the last commit ended.
 *
 * <p>A mirror that switches to Kafka already holds everything up to its continuation (from a backfill or from the
 * store's feed). It reads the topic from the beginning and skips each change at or below that continuation's LSN
 * for the change's feed range, which the source works out from the partition key as the store does.
 *
 * <p>A topic holds the changes of every container that had its name: a container deleted and created again publishes
 * to the same topic. The source reads only the changes of the container it was opened for, by {@code _rid}.
 */
public final class KafkaTopicSource implements ChangeSource {
    /** How long a read waits for records when none are fetched yet: short, so an idle daemon stays responsive. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final ContainerProperties container;
    private final KafkaChangeFeedReader reader;
    private final String continuation;
    private final Map<Integer, Long> alreadyMirrored;
    private final Map<TopicPartition, Long> nextOffsets = new HashMap<>();
    private final Map<Integer, Long> reached = new TreeMap<>();
    private final ArrayDeque<KafkaChangeFeedReader.Record> fetched = new ArrayDeque<>();

    private KafkaTopicSource(KafkaBridgeConfig config, ContainerProperties container, Checkpoint from) {
        this.container = container;
        this.continuation = from.continuation();
        this.alreadyMirrored = continuation == null ? Map.of() : ContinuationToken.decode(continuation).positions();
        from.kafkaOffsets().forEach((key, offset) -> nextOffsets.put(topicPartition(key), offset));
        if (from.kafkaReached() != null) {
            reached.putAll(ContinuationToken.decode(from.kafkaReached()).positions());
        }
        this.reader = new KafkaChangeFeedReader(config, container.id(), nextOffsets);
    }

    public static Opener opener(KafkaBridgeConfig config) {
        return (container, from) -> new KafkaTopicSource(config, container, from);
    }

    @Override
    public Changes read(int maxEvents) {
        try {
            if (fetched.isEmpty()) {
                fetched.addAll(reader.poll(POLL_TIMEOUT));
            }
            return take(maxEvents);
        } catch (RetriableException e) {
            // An unreachable broker, say: the daemon retries from the last commit.
            throw new MirrorException(MirrorErrorCode.SOURCE_UNAVAILABLE,
                    "Cannot read the Kafka topic of " + container.id() + ": "
                    + e.getMessage(), e);
        }
    }

    private Changes take(int maxEvents) {
        List<ChangeEvent> events = new ArrayList<>();
        while (events.size() < maxEvents && !fetched.isEmpty()) {
            KafkaChangeFeedReader.Record record = fetched.poll();
            nextOffsets.put(record.partition(), record.offset() + 1);
            if (isOfAnotherContainer(record)) {
                continue;
            }
            ChangeEvent event = record.event();
            int feedRange = container.logPartitionOf(event.partitionKey().toPartitionKey());
            if (event.lsn() > alreadyMirrored.getOrDefault(feedRange, 0L)) {
                events.add(event);
                reached.merge(feedRange, event.lsn(), Math::max);
            }
        }
        return new Changes(events, fetched.isEmpty() && reader.caughtUp());
    }

    /**
     * Whether the record is a change of another container of the same name, deleted or created again since: the
     * topic keeps every container's changes that were published to it. A record of an earlier version, without the
     * {@code _rid}, is taken as this container's.
     */
    private boolean isOfAnotherContainer(KafkaChangeFeedReader.Record record) {
        return !ContainerProperties.mayBeSameContainer(record.containerRid(), container.resourceId());
    }

    @Override
    public Checkpoint checkpoint() {
        Map<String, Long> offsets = new HashMap<>();
        nextOffsets.forEach((partition, offset) -> offsets.put(partition.toString(), offset));
        return new Checkpoint(continuation, offsets,
                reached.isEmpty() ? null : new ContinuationToken(container.id(), reached).encode());
    }

    @Override
    public String gapRemedy(String container) {
        return "run `docmirror backfill --container " + container + "` where the store is and mirror the container "
                + "from the store's change feed (--source embedded), or publish its changes again to a new topic "
                + "(" + KafkaBridgeConfig.TOPIC_PREFIX.key() + ").";
    }

    @Override
    public void close() {
        reader.close();
    }

    /** The inverse of {@link TopicPartition#toString()}: {@code <topic>-<partition>}. */
    private static TopicPartition topicPartition(String key) {
        int dash = key.lastIndexOf('-');
        return new TopicPartition(key.substring(0, dash), Integer.parseInt(key.substring(dash + 1)));
    }
}
