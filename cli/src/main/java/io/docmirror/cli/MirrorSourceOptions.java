package io.docmirror.cli;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.store.StoreClient;
import io.docmirror.store.http.HttpStoreClient;
import picocli.CommandLine.Option;

import java.util.Optional;

/** Where {@code mirror sync} and {@code mirror run} find the store and read its changes. */
final class MirrorSourceOptions {
    /** The environment variable with the store's HTTP key, when {@code --store} names a store that requires one. */
    static final String STORE_KEY_VARIABLE = "DOCMIRROR_STORE_KEY";

    enum Source { EMBEDDED, KAFKA }

    @Option(names = "--source", paramLabel = "embedded|kafka", defaultValue = "embedded",
            description = "Read changes from the store's own change feed (embedded, the default) or from the "
                    + "containers' Kafka topics (kafka.* options; `store serve --publish-kafka` writes them).")
    Source source;

    @Option(names = "--store", paramLabel = "URL",
            description = "The store's HTTP API (e.g. http://127.0.0.1:8081), for a store served by another process "
                    + "or machine; its key, if it needs one, from $" + STORE_KEY_VARIABLE + ". Default: the store "
                    + "in DIR, opened in this process.")
    String storeUrl;

    StoreClient openStore(DataDirOptions dataDir) {
        if (storeUrl == null) {
            return dataDir.openStore();
        }
        return new HttpStoreClient(storeUrl, Optional.ofNullable(System.getenv(STORE_KEY_VARIABLE)));
    }

    ChangeSource.Opener changeSources(StoreClient store, DataDirOptions dataDir) {
        return switch (source) {
            case EMBEDDED -> EmbeddedFeedSource.opener(store);
            case KAFKA -> KafkaTopicSource.opener(dataDir.kafkaConfig());
        };
    }
}
