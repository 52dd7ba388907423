package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.store.http.HttpStoreClient;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The child process of {@link KafkaMirrorCrashTest}: the mirror daemon reading Kafka, committing small batches,
 * until it is killed. It learns the containers from the store's HTTP API, as a mirror on another machine would.
 * Arguments: store URI, Kafka bootstrap servers, mirror directory, topic prefix.
 */
public final class KafkaMirrorWorker {
    public static void main(String[] args) throws Exception {
        HttpStoreClient store = new HttpStoreClient(args[0], Optional.empty());
        try (FeedMirror mirror = new FeedMirror(store, KafkaTopicSource.opener(KafkaMirrorCrashTest.topics(args[1],
                args[3])), Path.of(args[2]), MirrorConfig.defaults().withBatch(40, Duration.ofMillis(20)),
                FlattenerConfig::defaults, Clock.systemUTC())) {
            System.out.println("running");
            System.out.flush();
            mirror.run();
        }
    }
}
