package io.docmirror.demo;

import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DemoDatasetTest {
    @TempDir
    Path dir;

    @Test
    void aLoadInterruptedHalfWayResumesWhereItStopped() {
        DemoDataset dataset = new DemoDataset(12_000);
        try (EmbeddedStore store = EmbeddedStore.open(dir, StoreConfig.defaults())) {
            assertThatThrownBy(() -> dataset.load(store, done -> {
                throw new IllegalStateException("killed after " + done);
            })).hasMessage("killed after 5000");

            List<Long> progress = new ArrayList<>();
            assertThat(dataset.load(store, progress::add)).isEqualTo(7_000);
            assertThat(progress).containsExactly(5_000L, 10_000L, 12_000L);
            assertThat(countItems(store)).isEqualTo(12_000);

            assertThat(dataset.load(store, progress::add)).as("a complete dataset is left alone").isZero();
        }
    }

    @Test
    void ordersSpreadOverTheYearInOrder() {
        DemoDataset dataset = new DemoDataset(1000);

        assertThat(dataset.placedAt(0)).hasToString("2025-01-01T00:00:00Z");
        assertThat(dataset.placedAt(500)).hasToString("2025-07-02T12:00:00Z");
        assertThat(dataset.placedAt(999)).isBefore(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void theStreamWritesNewOrdersAndShipsEarlierOnes() throws Exception {
        DemoDataset dataset = new DemoDataset(10);
        try (EmbeddedStore store = EmbeddedStore.open(dir, StoreConfig.defaults())) {
            dataset.load(store, done -> { });
            OrderStream stream = new OrderStream(store, dataset, Clock.systemUTC());
            stream.start(Duration.ofMillis(5));
            while (stream.written() < 6) {
                Thread.sleep(5);
            }
            stream.close();

            assertThat(stream.failures()).isZero();
            assertThat(countItems(store)).isEqualTo(10 + stream.written());
            assertThat(store.findItem(DemoDataset.CONTAINER,
                    PartitionKey.of(dataset.generator().customerId(10)), "order-10").orElseThrow().json())
                    .contains("\"status\":\"shipped\"");
        }
    }

    private static long countItems(EmbeddedStore store) {
        long count = 0;
        for (int range = 0; range < store.readContainer(DemoDataset.CONTAINER).logPartitions(); range++) {
            Optional<String> continuation = Optional.empty();
            do {
                ItemPage page = store.scanItems(DemoDataset.CONTAINER, range, continuation, 1000);
                count += page.items().size();
                continuation = page.continuation();
            } while (continuation.isPresent());
        }
        return count;
    }
}
