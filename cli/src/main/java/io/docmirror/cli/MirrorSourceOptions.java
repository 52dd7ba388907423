package io.docmirror.cli;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.store.StoreClient;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Where {@code mirror sync} and {@code mirror run} find the store and read its changes. */
final class MirrorSourceOptions {
    enum Source { EMBEDDED, KAFKA }

    @Option(names = "--source", paramLabel = "embedded|kafka", defaultValue = "embedded",
            description = "Read changes from the store's own change feed (embedded, the default) or from the "
                    + "containers' Kafka topics (kafka.* options; `store serve --publish-kafka` writes them).")
    Source source;

    @Mixin
    MirrorStoreOption store = new MirrorStoreOption();

    StoreClient openStore(DataDirOptions dataDir) {
        return store.open(dataDir);
    }

    ChangeSource.Opener changeSources(StoreClient store, DataDirOptions dataDir) {
        return switch (source) {
            case EMBEDDED -> EmbeddedFeedSource.opener(store);
            case KAFKA -> KafkaTopicSource.opener(dataDir.kafkaConfig());
        };
    }
}
