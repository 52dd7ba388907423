package io.docmirror.layout;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The layout module is what the SQL endpoint reads the mirror through: it must stay free of the mirror daemon and of
 * what the daemon needs (Hadoop, Kafka, RocksDB), so none of their classes may be reachable from its class path.
 */
class ModuleGraphTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "org.apache.hadoop.conf.Configuration",
            "org.apache.kafka.clients.consumer.KafkaConsumer",
            "org.rocksdb.RocksDB",
            "io.docmirror.mirror.ContainerMirror",
            "io.docmirror.feed.ChangeFeedReader",
            "org.apache.iceberg.parquet.Parquet"})
    void theLayoutModuleDoesNotSee(String className) {
        assertThatThrownBy(() -> Class.forName(className)).isInstanceOf(ClassNotFoundException.class);
    }
}
