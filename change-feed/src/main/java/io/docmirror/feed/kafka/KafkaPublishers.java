package io.docmirror.feed.kafka;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * A {@link KafkaChangePublisher} for every mirrored container of a store, each on its own thread, so that a mirror
 * elsewhere can read them all from Kafka ({@code ./docmirror store serve --publish-kafka}). Containers created or
 * mirrored later are picked up within {@link #CONTAINER_LOOKUP_INTERVAL}.
 */
public final class KafkaPublishers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaPublishers.class);
    private static final Duration CONTAINER_LOOKUP_INTERVAL = Duration.ofSeconds(10);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final StoreClient store;
    private final KafkaBridgeConfig config;
    private final Map<String, Running> publishers = new LinkedHashMap<>();
    private final ScheduledExecutorService lookups = Executors.newSingleThreadScheduledExecutor(runnable ->
            new Thread(runnable, "kafka-publishers"));

    /** A container's publisher and the thread that runs it. */
    private record Running(KafkaChangePublisher publisher, Thread thread) {
    }

    private KafkaPublishers(StoreClient store, KafkaBridgeConfig config) {
        this.store = requireNonNull(store, "store is null");
        this.config = requireNonNull(config, "config is null");
    }

    public static KafkaPublishers start(StoreClient store, KafkaBridgeConfig config) {
        KafkaPublishers publishers = new KafkaPublishers(store, config);
        publishers.startNewContainers();
        publishers.lookups.scheduleWithFixedDelay(publishers::lookUpNewContainers,
                CONTAINER_LOOKUP_INTERVAL.toMillis(), CONTAINER_LOOKUP_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return publishers;
    }

    /**
     * The periodic lookup. A failure (the store closing, say) is logged and the next lookup tries again: a scheduled
     * task that throws is never run again, silently.
     */
    private void lookUpNewContainers() {
        try {
            startNewContainers();
        } catch (RuntimeException e) {
            log.error("Cannot look up the store's containers to publish; trying again in {}", CONTAINER_LOOKUP_INTERVAL,
                    e);
        }
    }

    private synchronized void startNewContainers() {
        for (ContainerProperties container : store.listContainers()) {
            if (!container.isMirrored() || publishers.containsKey(container.id())) {
                continue;
            }
            KafkaChangePublisher publisher = new KafkaChangePublisher(store, container.id(), config);
            Thread thread = new Thread(() -> {
                try {
                    publisher.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    log.error("Publishing the changes of {} to Kafka stopped", container.id(), e);
                }
            }, "kafka-publisher-" + container.id());
            publishers.put(container.id(), new Running(publisher, thread));
            thread.start();
        }
    }

    /** What each container's publisher has done since it started; safe to call from any thread. */
    public synchronized List<PublisherActivity> activity() {
        return publishers.values().stream().map(running -> running.publisher().activity()).toList();
    }

    /** Stops every publisher after its current transaction. */
    @Override
    public synchronized void close() {
        lookups.shutdownNow();
        publishers.values().forEach(running -> running.publisher().close());
        for (Running running : publishers.values()) {
            try {
                running.thread().join(STOP_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
