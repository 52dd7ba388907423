package io.docmirror.flink;

/**
 * One change of a container's Kafka topic as the job's records carry it: its document's key (the writers are keyed
 * by it), where it was read, and the record's value, the change envelope, decoded by the writer. A Flink POJO of basic
 * types: the change itself (JSON) is never serialized by Flink.
 */
public final class FeedRecord {
    /** The document's key ({@code ShardWriter.documentKey}). */
    public String key;
    public String topic;
    public int partition;
    public long offset;
    /** The change's feed range in the store (its log partition) and its LSN there. */
    public int feedRange;
    public long lsn;
    /** The record's value: the change envelope {@code KafkaChangePublisher} wrote. */
    public byte[] value;

    /** For Flink's POJO serializer. */
    public FeedRecord() {
    }

    public FeedRecord(String key, String topic, int partition, long offset, int feedRange, long lsn, byte[] value) {
        this.key = key;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.feedRange = feedRange;
        this.lsn = lsn;
        this.value = value;
    }

    /** The topic partition it was read from, as the mirror's checkpoint names it ({@code <topic>-<partition>}). */
    public String topicPartition() {
        return topic + "-" + partition;
    }
}
