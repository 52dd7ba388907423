package io.docmirror.store.bulk;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The import pipeline over many small batches: the next batches are read and checked while the current one is
 * written, yet the store ends as if the batches had been written one after the other.
 */
class JsonLinesImporterTest {
    private static final String ORDERS = "orders";

    @TempDir
    Path dataDir;
    private EmbeddedStore store;

    @BeforeEach
    void open() {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults());
        store.createContainer(ContainerProperties.of(ORDERS, "/pk"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void batchesLoadInFileOrderAndBadLinesAreReportedInLineOrder() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int line = 1; line <= 40; line++) {
            lines.add(switch (line) {
                case 5 -> "{\"id\":\"d005\",\"pk\":";
                case 11 -> document(2);
                case 12 -> "{\"pk\":\"p1\"}";
                case 20 -> "   ";
                default -> document(line);
            });
        }
        ByteArrayOutputStream rejects = new ByteArrayOutputStream();
        List<long[]> progress = new ArrayList<>();

        JsonLinesImporter.Summary summary = new JsonLinesImporter(store, options(IdAssignment.AS_IS, 3, false))
                .importStream(stream(lines), rejects, (bytes, loaded) -> progress.add(new long[] {bytes, loaded}));

        assertThat(summary.lines()).isEqualTo(40);
        assertThat(summary.loaded()).isEqualTo(36);
        assertThat(summary.stoppedEarly()).isFalse();
        assertThat(summary.firstRejections()).extracting(JsonLinesImporter.Rejection::line).containsExactly(5L, 11L, 12L);
        assertThat(summary.firstRejections()).extracting(JsonLinesImporter.Rejection::status)
                .containsExactly(400, 409, 400);
        assertThat(rejects.toString(StandardCharsets.UTF_8).lines().toList()).hasSize(3)
                .satisfies(rejected -> assertThat(rejected.get(0)).startsWith("{\"line\":5,"))
                .satisfies(rejected -> assertThat(rejected.get(1)).startsWith("{\"line\":11,")
                        .contains("an item with this id already exists"))
                .satisfies(rejected -> assertThat(rejected.get(2)).startsWith("{\"line\":12,")
                        .contains("has no 'id'"));
        List<Integer> stored = IntStream.rangeClosed(1, 40).filter(line -> line != 5 && line != 11 && line != 12
                && line != 20).boxed().toList();
        assertThat(StoreTesting.allItems(store, ORDERS)).extracting(Item::id)
                .containsExactlyInAnyOrderElementsOf(stored.stream().map(JsonLinesImporterTest::id).toList());
        assertChangeLogFollowsTheFile(stored.size());
        assertThat(progress).extracting(step -> step[1]).isSorted().last().isEqualTo(36L);
        assertThat(progress.get(progress.size() - 1)[0]).isEqualTo(summary.bytes());
    }

    @Test
    void failFastStoresTheLinesBeforeALineThatCannotGetAnIdEvenInItsOwnBatch() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int line = 1; line <= 20; line++) {
            lines.add(line == 10 ? "{\"pk\":\"p1\"}" : "{\"n\":\"" + id(line) + "\",\"pk\":\"p" + line % 7 + "\"}");
        }
        ByteArrayOutputStream rejects = new ByteArrayOutputStream();

        JsonLinesImporter.Summary summary = new JsonLinesImporter(store, options(IdAssignment.fromPath("/n"), 4, true))
                .importStream(stream(lines), rejects, JsonLinesImporter.Progress.NONE);

        assertThat(summary.stoppedEarly()).isTrue();
        assertThat(summary.loaded()).isEqualTo(9);
        assertThat(summary.firstRejections()).extracting(JsonLinesImporter.Rejection::reason)
                .containsExactly("Line 10 has no /n to take the id from");
        assertThat(rejects.toString(StandardCharsets.UTF_8).lines()).hasSize(1);
        assertThat(StoreTesting.allItems(store, ORDERS)).extracting(Item::id).containsExactlyInAnyOrderElementsOf(
                IntStream.rangeClosed(1, 9).mapToObj(JsonLinesImporterTest::id).toList());
        assertChangeLogFollowsTheFile(9);
    }

    @Test
    void failFastStopsAtABadDocumentThoughLaterBatchesWereAlreadyReadAndChecked() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int line = 1; line <= 30; line++) {
            lines.add(line == 8 ? "{\"id\":\"d008\",\"pk\":\"p1\",\"ttl\":0}" : document(line));
        }
        ByteArrayOutputStream rejects = new ByteArrayOutputStream();

        JsonLinesImporter.Summary summary = new JsonLinesImporter(store, options(IdAssignment.AS_IS, 3, true))
                .importStream(stream(lines), rejects, JsonLinesImporter.Progress.NONE);

        assertThat(summary.stoppedEarly()).isTrue();
        assertThat(summary.loaded()).isEqualTo(7);
        assertThat(summary.lines()).isEqualTo(9);
        assertThat(summary.firstRejections()).singleElement().satisfies(rejection -> {
            assertThat(rejection.line()).isEqualTo(8);
            assertThat(rejection.reason()).startsWith("Line 8: ").contains("item 'd008'", "/ttl", "ttl 0");
        });
        assertThat(StoreTesting.allItems(store, ORDERS)).extracting(Item::id).containsExactlyInAnyOrderElementsOf(
                IntStream.rangeClosed(1, 7).mapToObj(JsonLinesImporterTest::id).toList());
        assertChangeLogFollowsTheFile(7);
    }

    /**
     * Each log partition's events, in LSN order from 1 without a gap, are creates of the documents in the order of
     * their lines: what writing the batches one after the other gives.
     */
    private void assertChangeLogFollowsTheFile(int documents) {
        List<ChangeEvent> events = StoreTesting.changeLog(store, ORDERS);
        assertThat(events).hasSize(documents);
        Map<Integer, List<ChangeEvent>> byPartition = new TreeMap<>(events.stream().collect(Collectors.groupingBy(
                event -> store.readContainer(ORDERS).logPartitionOf(event.partitionKey().toPartitionKey()))));
        for (List<ChangeEvent> partition : byPartition.values()) {
            List<ChangeEvent> inLsnOrder = partition.stream().sorted(Comparator.comparingLong(ChangeEvent::lsn)).toList();
            assertThat(inLsnOrder).extracting(ChangeEvent::lsn).containsExactlyElementsOf(
                    IntStream.rangeClosed(1, partition.size()).mapToObj(Long::valueOf).toList());
            assertThat(inLsnOrder).extracting(ChangeEvent::id).isSorted();
        }
    }

    private static JsonLinesImporter.Options options(IdAssignment ids, int batchDocuments, boolean failFast) {
        return new JsonLinesImporter.Options(ORDERS, ids, false, failFast, batchDocuments,
                JsonLinesImporter.Options.DEFAULT_BATCH_BYTES);
    }

    private static String document(int line) {
        return "{\"id\":\"" + id(line) + "\",\"pk\":\"p" + line % 7 + "\",\"amount\":12.50}";
    }

    private static String id(int line) {
        return String.format("d%03d", line);
    }

    private static ByteArrayInputStream stream(List<String> lines) {
        return new ByteArrayInputStream((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
