package io.docmirror.feed.processor;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.http.HttpStoreClient;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Optional;

/**
 * A change feed processor worker in its own JVM, for the failover test: reads the store over HTTP and appends
 * the key ({@link ProcessorTesting#key}) of every change it handles to a file, before the batch is checkpointed.
 * Usage: {@code ProcessorWorker <store URI> <worker id> <output file>}.
 */
public final class ProcessorWorker {
    private ProcessorWorker() {
    }

    public static void main(String[] args) throws Exception {
        HttpStoreClient store = new HttpStoreClient(args[0], Optional.empty());
        try (FileChannel output = FileChannel.open(Path.of(args[2]), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ChangeFeedHandler handler = (context, events) -> {
                StringBuilder lines = new StringBuilder();
                for (ChangeEvent event : events) {
                    lines.append(ProcessorTesting.key(event)).append('\n');
                }
                output.write(ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8)));
            };
            ChangeFeedProcessor processor = new ChangeFeedProcessor(store, "orders", handler,
                    ProcessorTesting.fastOptions(args[1]), Clock.systemUTC());
            processor.start();
            System.out.println("started");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
