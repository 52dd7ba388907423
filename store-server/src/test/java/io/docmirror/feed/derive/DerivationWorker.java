package io.docmirror.feed.derive;

import io.docmirror.feed.processor.ProcessorOptions;
import io.docmirror.store.http.HttpStoreClient;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The scenario's derivation runner in its own JVM, reading and writing the store over HTTP, for the crash test.
 * Usage: {@code DerivationWorker <store URI> <worker id>}; prints "started", then runs until killed.
 */
public final class DerivationWorker {
    static final Duration LEASE = Duration.ofMillis(1000);

    private DerivationWorker() {
    }

    static ProcessorOptions options(String processorName, String workerId) {
        return ProcessorOptions.defaults(processorName, workerId)
                .withTimings(LEASE, Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(20),
                        Duration.ofMillis(50))
                .withMaxEventsPerBatch(40);
    }

    public static void main(String[] args) throws Exception {
        HttpStoreClient store = new HttpStoreClient(args[0], Optional.empty());
        DerivationRunner runner = new DerivationRunner(store, List.of(DerivationTesting.scenario()),
                name -> options(name, args[1]), Clock.systemUTC());
        runner.start();
        System.out.println("started");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
