package io.docmirror.feed.kafka;

import io.docmirror.feed.FeedErrorCode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A {@link KafkaChangePublisher} for every mirrored container of a store, each on its own thread, so that a mirror
 * elsewhere can read them all from Kafka ({@code ./docmirror store serve --publish-kafka}). At each look-up of the
 * containers, every {@link #LOOKUP_INTERVAL} by default: containers created or mirrored since get a publisher; a
 * publisher that died is started again, after a delay that doubles with each death in a row up to
 * {@link #MAX_RESTART_DELAY} (one that published something before it died starts the count again); and a container
 * that is gone is forgotten, so that one created again under its name gets a publisher of its own. Whether a publisher
 * that died is started again goes by the code of what stopped it ({@link FeedErrorCode#retriable}): a store or broker
 * outage is, while a publisher that another took over ({@code PUBLISHER_FENCED}; starting it again would take the
 * container back, and so on forever), or that lost its position in the feed, stays stopped.
 */
public final class KafkaPublishers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaPublishers.class);
    static final Duration LOOKUP_INTERVAL = Duration.ofSeconds(10);
    static final Duration MAX_RESTART_DELAY = Duration.ofMinutes(5);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final StoreClient store;
    private final KafkaBridgeConfig config;
    private final Duration lookupInterval;
    private final Map<String, Running> publishers = new LinkedHashMap<>();
    /** Publishers started so far, the first of each container and each started again. */
    private long started;
    private final ScheduledExecutorService lookups = Executors.newSingleThreadScheduledExecutor(runnable ->
            new Thread(runnable, "kafka-publishers"));

    /** A container's publisher, the thread that runs it, and how many of its publishers died in a row before it. */
    private record Running(KafkaChangePublisher publisher, Thread thread, int deathsInARow, long startedAtNanos) {
        /** Whether it stopped, and of what may pass: to be started again. */
        boolean died() {
            return !thread.isAlive() && publisher.stoppedBy().map(FeedErrorCode::retriable).orElse(true);
        }

        /** How many publishers of the container died in a row, this one included. */
        int deaths() {
            return publisher.activity().transactions() > 0 ? 1 : deathsInARow + 1;
        }
    }

    private KafkaPublishers(StoreClient store, KafkaBridgeConfig config, Duration lookupInterval) {
        this.store = requireNonNull(store, "store is null");
        this.config = requireNonNull(config, "config is null");
        this.lookupInterval = requireNonNull(lookupInterval, "lookupInterval is null");
    }

    public static KafkaPublishers start(StoreClient store, KafkaBridgeConfig config) {
        return start(store, config, LOOKUP_INTERVAL);
    }

    /** @param lookupInterval how often the containers are looked up (and a publisher that died at the soonest) */
    public static KafkaPublishers start(StoreClient store, KafkaBridgeConfig config, Duration lookupInterval) {
        KafkaPublishers publishers = new KafkaPublishers(store, config, lookupInterval);
        publishers.lookUp();
        publishers.lookups.scheduleWithFixedDelay(publishers::lookUpAndLogFailure, lookupInterval.toMillis(),
                lookupInterval.toMillis(), TimeUnit.MILLISECONDS);
        return publishers;
    }

    /**
     * The periodic look-up. A failure (the store closing, say) is logged and the next look-up tries again: a
     * scheduled task that throws is never run again, silently.
     */
    private void lookUpAndLogFailure() {
        try {
            lookUp();
        } catch (RuntimeException e) {
            log.error("Cannot look up the store's containers to publish; trying again in {}", lookupInterval, e);
        }
    }

    private synchronized void lookUp() {
        List<ContainerProperties> mirrored = store.listContainers().stream().filter(ContainerProperties::isMirrored)
                .toList();
        Set<String> listed = mirrored.stream().map(ContainerProperties::id).collect(Collectors.toSet());
        publishers.entrySet().removeIf(entry -> !listed.contains(entry.getKey()) && !entry.getValue().thread()
                .isAlive());
        for (ContainerProperties container : mirrored) {
            Running running = publishers.get(container.id());
            if (running == null) {
                start(container.id(), 0);
            } else if (running.died() && System.nanoTime() - running.startedAtNanos() >= restartDelay(running)
                    .toNanos()) {
                log.info("Starting the Kafka publisher of {} again ({} died in a row)", container.id(),
                        running.deaths());
                start(container.id(), running.deaths());
            }
        }
    }

    /** How long after a dead publisher's start the next one may start: doubling with each death in a row. */
    private Duration restartDelay(Running running) {
        long delay = lookupInterval.toMillis() << Math.min(running.deaths() - 1, 20);
        return Duration.ofMillis(Math.min(delay, MAX_RESTART_DELAY.toMillis()));
    }

    private void start(String container, int deathsInARow) {
        KafkaChangePublisher publisher = new KafkaChangePublisher(store, container, config);
        Thread thread = new Thread(() -> {
            try {
                publisher.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                FeedErrorCode code = FeedErrorCode.of(e);
                log.error("Publishing the changes of {} to Kafka stopped ({}){}", container, code, code.retriable()
                        ? "; a publisher is started again at a later look-up if the store still has the container"
                        : "; it is not started again until the process restarts", e);
            }
        }, "kafka-publisher-" + container);
        publishers.put(container, new Running(publisher, thread, deathsInARow, System.nanoTime()));
        started++;
        thread.start();
    }

    /** How many publishers were started so far: one for each container, and one for each started again. */
    synchronized long started() {
        return started;
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
