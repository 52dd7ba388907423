package io.docmirror.feed.processor;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.http.HttpStoreClient;

import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;

/**
 * A change feed processor worker in its own JVM, for the failover test: reads the store over HTTP and appends
 * the key ({@link ProcessorTesting#key}) of every change it handles to a file, before the batch is checkpointed.
 * Usage: {@code ProcessorWorker <store URI> <worker id> <output file>}.
 */
public final class ProcessorWorker {
    /** The line the worker prints once its processor has started. */
    static final String STARTED = "started";

    private ProcessorWorker() {
    }

    public static void main(String[] args) throws Exception {
        HttpStoreClient store = new HttpStoreClient(args[0], Optional.empty());
        // A stream, not a FileChannel: the processor interrupts a batch's thread when its lease is lost, and an
        // interrupt during a write closes an interruptible channel for every thread, so that every later batch of
        // this worker would fail.
        try (OutputStream output = new FileOutputStream(args[2], true)) {
            ChangeFeedHandler handler = (context, events) -> {
                StringBuilder lines = new StringBuilder();
                for (ChangeEvent event : events) {
                    lines.append(ProcessorTesting.key(event)).append('\n');
                }
                // Feed ranges are handled on concurrent threads: one batch's lines must not interleave another's.
                synchronized (output) {
                    output.write(lines.toString().getBytes(StandardCharsets.UTF_8));
                }
            };
            ChangeFeedProcessor processor = new ChangeFeedProcessor(store, "orders", handler,
                    ProcessorTesting.fastOptions(args[1]), Clock.systemUTC());
            processor.start();
            System.out.println(STARTED);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
