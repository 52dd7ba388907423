package io.docmirror.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Closing the store while other threads still read it (an HTTP request, the mirror's reader of the change log). */
class StoreCloseTest {
    @TempDir
    Path directory;

    @Test
    void readsRacingTheStoresCloseFailWithAClearErrorAndNeverCrashTheProcess() throws Exception {
        EmbeddedStore store = EmbeddedStore.open(directory, StoreConfig.defaults().withSyncWrites(false));
        store.createContainer(ContainerProperties.of("orders", "/customerId").withLogPartitions(1));
        for (int order = 0; order < 5_000; order++) {
            store.createItem("orders", ("{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 7 + "\"}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        AtomicLong pages = new AtomicLong();
        // Each page iterates over 5,000 events of the log: a close lands in the middle of one.
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            while (true) {
                if (store.readChangeLog("orders", 0, 0, 5_000).events().size() == 5_000) {
                    pages.incrementAndGet();
                }
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pages.get() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(pages.get()).as("pages read before the close").isGreaterThanOrEqualTo(3);

        store.close();

        assertThatThrownBy(() -> reader.get(30, TimeUnit.SECONDS))
                .as("the reader, after %d pages", pages.get())
                .hasCauseInstanceOf(StoreException.class)
                .cause().hasMessageContaining("closed");
        System.out.println("the reader read " + pages.get() + " pages, then failed with: "
                + reader.handle((done, failure) -> failure.getCause().getMessage()).get());
        assertThatThrownBy(() -> store.readChangeLog("orders", 0, 0, 10)).isInstanceOf(StoreException.class)
                .hasMessageContaining("closed");
    }
}
