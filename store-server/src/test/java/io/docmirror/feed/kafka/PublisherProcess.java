package io.docmirror.feed.kafka;

import io.docmirror.store.http.HttpStoreClient;

import java.util.Optional;

/**
 * A Kafka publisher in its own JVM, for the exactly-once test that kills it with SIGKILL.
 * Usage: {@code PublisherProcess <store URI> <bootstrap servers> <container>}.
 */
public final class PublisherProcess {
    private PublisherProcess() {
    }

    public static void main(String[] args) throws Exception {
        HttpStoreClient store = new HttpStoreClient(args[0], Optional.empty());
        KafkaChangePublisher publisher = new KafkaChangePublisher(store, args[2], KafkaBridgeConfig.defaults(args[1]));
        System.out.println("started");
        System.out.flush();
        publisher.run();
    }
}
