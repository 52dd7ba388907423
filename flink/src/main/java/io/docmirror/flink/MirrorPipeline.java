package io.docmirror.flink;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The job's graph: the container's topic (read committed, from where the tables' last commit ended), writers keyed
 * by document at {@code parallelism}, and one committer. Every stateful operator has a fixed uid, so a savepoint
 * restores into the graph at another parallelism.
 *
 * @param bootstrapServers the Kafka cluster
 * @param topic the container's topic ({@code <kafka.topic-prefix><container>})
 * @param container the container's properties as the store has them ({@code _rid}, feed ranges)
 * @param mirrored the mirror's directory, the container and the job's run
 * @param parallelism how many writers
 */
record MirrorPipeline(String bootstrapServers, String topic, ContainerProperties container,
        MirroredContainer mirrored, int parallelism) {
    static final String SOURCE_UID = "docmirror-kafka-source";
    static final String WRITERS_UID = "docmirror-writers";
    static final String COMMITTER_UID = "docmirror-committer";

    MirrorPipeline {
        requireNonNull(bootstrapServers, "bootstrapServers is null");
        requireNonNull(topic, "topic is null");
        requireNonNull(container, "container is null");
        requireNonNull(mirrored, "mirrored is null");
        if (parallelism < 1) {
            throw new IllegalArgumentException("The job needs at least one writer: parallelism " + parallelism);
        }
    }

    /** Adds the job's operators to {@code env}. */
    void addTo(StreamExecutionEnvironment env) {
        Checkpoint committed;
        try (CatalogConnection catalog = mirrored.openCatalog()) {
            committed = mirrored.committed(catalog, 0).checkpoint();
        }
        KafkaSource<FeedRecord> source = KafkaSource.<FeedRecord>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(topic)
                .setGroupId("docmirror-flink-" + mirrored.container())
                // The offsets that count are the tables' (and, restored, the checkpoint's): the group's never are.
                .setProperty("commit.offsets.on.checkpoint", "false")
                .setProperty("isolation.level", "read_committed")
                .setStartingOffsets(OffsetsInitializer.offsets(startingOffsets(committed),
                        OffsetResetStrategy.EARLIEST))
                .setDeserializer(new FeedRecordDeserializer(container, committed.continuation()))
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka " + topic)
                .uid(SOURCE_UID)
                .setParallelism(parallelism)
                .keyBy(record -> record.key, Types.STRING)
                .transform("writers", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO, new ShardWriterOperator(mirrored))
                .uid(WRITERS_UID)
                .setParallelism(parallelism)
                .global()
                .transform("committer", Types.VOID, new MirrorCommitter(mirrored))
                .uid(COMMITTER_UID)
                .setParallelism(1)
                .setMaxParallelism(1);
    }

    /** The next offset of each of the topic's partitions the tables' last commit recorded. */
    private Map<TopicPartition, Long> startingOffsets(Checkpoint committed) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        committed.kafkaOffsets().forEach((key, offset) -> {
            int dash = key.lastIndexOf('-');
            if (key.substring(0, dash).equals(topic)) {
                offsets.put(new TopicPartition(topic, Integer.parseInt(key.substring(dash + 1))), offset);
            }
        });
        return offsets;
    }
}
