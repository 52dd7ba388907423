package io.docmirror.mirror.iceberg;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The document index on a real RocksDB in a temporary directory: a commit's changes recorded before the catalog
 * commit and applied after it, what it keeps across a reopen, and how it catches up after a crash.
 */
class DocumentIndexTest {
    private static final String O1 = DocumentIndex.key("o1", "\"c1\"");
    private static final String O2 = DocumentIndex.key("o2", "\"c2\"");

    /** Reads no data file: for the tests where no compaction moves rows. */
    static final DocumentIndex.FileKeys NO_FILES = (table, dataFile, row) -> {
        throw new AssertionError("No data file is read here, yet " + dataFile + " was");
    };

    @TempDir
    Path directory;

    @Test
    void aCommitsChangesTakeEffectWhenAppliedAndLastAcrossAReopen() {
        long[] o1Rows;
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            o1Rows = new long[] {index.place("orders", "/w/a.parquet", 0), index.place("items", "/w/b.parquet", 0),
                    index.place("items", "/w/b.parquet", 1)};
            index.prepare(1, Map.of(O1, o1Rows, O2, new long[] {index.place("orders", "/w/a.parquet", 1)}), 2,
                    Map.of(), List.of());
            assertThat(index.of(O1)).as("recorded, not applied").isEmpty();
            index.apply(1, "root@1");
            assertThat(index.documents()).isEqualTo(2);

            index.prepare(2, Map.of(O2, new long[] {index.place("orders", "/w/c.parquet", 0)}), 0, Map.of(),
                    List.of());
            index.apply(2, "root@2");
        }

        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            assertThat(index.marker()).contains("root@2");
            assertThat(index.documents()).isEqualTo(2);
            assertThat(sorted(index.of(O1))).isEqualTo(sorted(o1Rows));
            assertThat(describe(index, index.of(O2))).containsExactly("orders /w/c.parquet#0");

            index.prepare(3, Map.of(O2, new long[0]), -1, Map.of(), List.of("/w/c.parquet"));
            index.apply(3, "root@3");
            assertThat(index.of(O2)).isEmpty();
            assertThat(index.documents()).isEqualTo(1);
        }
    }

    /**
     * The old file's row 1 was deleted: rows 0 and 2 become rows 0 and 1 of the new file, which the index learns
     * from the new file's key columns.
     */
    @Test
    void aCompactedFilesRowsMoveAndOtherFilesRowsStay() {
        List<String> filesRead = new ArrayList<>();
        DocumentIndex.FileKeys newFile = (table, dataFile, row) -> {
            filesRead.add(table + " " + dataFile);
            row.accept(0, O1);
            row.accept(1, O2);
        };
        try (DocumentIndex index = DocumentIndex.open(directory, newFile)) {
            long kept = index.place("items", "/w/kept.parquet", 5);
            index.prepare(1, Map.of(O1, new long[] {index.place("orders", "/w/old.parquet", 0), kept},
                    O2, new long[] {index.place("orders", "/w/old.parquet", 2)}), 2, Map.of(), List.of());
            index.apply(1, "root@1");

            index.prepare(2, Map.of(), 0, Map.of("/w/old.parquet", new DocumentIndex.Moved("orders",
                    "/w/new.parquet", new int[] {0, -1, 1})), List.of("/w/old.parquet"));
            index.apply(2, "root@2");
            assertThat(filesRead).containsExactly("orders /w/new.parquet");

            assertThat(describe(index, index.of(O1))).containsExactly("items /w/kept.parquet#5",
                    "orders /w/new.parquet#0");
            assertThat(describe(index, index.of(O2))).containsExactly("orders /w/new.parquet#1");
        }
    }

    /**
     * A crash after the catalog took batch 2 and before the index applied it leaves the index at batch 1 with batch
     * 2's changes recorded: opening the tables applies them. Changes recorded for a batch the catalog never took are
     * dropped.
     */
    @Test
    void anIndexOneCommitBehindCatchesUpWithTheRecordedChanges() {
        recordBatchTwoAfterBatchOne();
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            assertThat(index.catchUp("root", 2, true)).isTrue();
            assertThat(index.marker()).contains(DocumentIndex.marker("root", 2));
            assertThat(describe(index, index.of(O2))).containsExactly("orders /w/b.parquet#0");
            assertThat(index.documents()).isEqualTo(2);

            index.prepare(3, Map.of(O1, new long[0]), -1, Map.of(), List.of());
            // The catalog stays at batch 2: batch 3 never landed.
            assertThat(index.catchUp("root", 2, true)).isTrue();
            assertThat(index.of(O1)).hasSize(1);
            assertThat(index.catchUp("another-root", 2, true)).as("another root table: rebuild").isFalse();
            assertThat(index.catchUp("root", 4, true)).as("two commits behind: rebuild").isFalse();
        }
    }

    /**
     * A crash after the index recorded batch 2 and before the catalog took it, and then another process committing
     * a batch 2 of a kind this index never records (a backfill, a scaled-out stream's commit): the recorded changes
     * are not that commit's, so they are dropped and the index is rebuilt. An index that reflects such a commit
     * already (rebuilt at it) stays.
     */
    @Test
    void changesRecordedUnderTheNumberOfAnotherProcesssCommitAreDropped() {
        recordBatchTwoAfterBatchOne();
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            assertThat(index.catchUp("root", 2, false)).as("batch 2 is another process's").isFalse();
            assertThat(index.catchUp("root", 2, true)).as("its recorded changes are gone").isFalse();
            assertThat(index.of(O2)).isEmpty();

            index.clear();
            index.mark(DocumentIndex.marker("root", 2));
            assertThat(index.catchUp("root", 2, false)).as("rebuilt at that commit").isTrue();
        }
    }

    /** Leaves the index at batch 1 (O1's row) with batch 2's changes (O2's row) recorded, as a crash between does. */
    private void recordBatchTwoAfterBatchOne() {
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            index.prepare(1, Map.of(O1, new long[] {index.place("orders", "/w/a.parquet", 0)}), 1, Map.of(),
                    List.of());
            index.apply(1, DocumentIndex.marker("root", 1));
            index.prepare(2, Map.of(O2, new long[] {index.place("orders", "/w/b.parquet", 0)}), 1, Map.of(),
                    List.of());
        }
    }

    /** Many documents looked up at once come back in the order asked, the unknown ones with no rows. */
    @Test
    void manyDocumentsLookedUpAtOnceComeBackInTheOrderAsked() {
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            Map<String, long[]> changed = new HashMap<>();
            List<String> asked = new ArrayList<>();
            for (int document = 2_500; document > 0; document--) {
                String key = DocumentIndex.key("o" + document, "\"c\"");
                asked.add(key);
                if (document % 3 == 0) {
                    changed.put(key, new long[] {index.place("orders", "/w/a.parquet", document)});
                }
            }
            index.prepare(1, changed, changed.size(), Map.of(), List.of());
            index.apply(1, "root@1");

            List<long[]> found = index.of(asked);
            assertThat(found).hasSize(asked.size());
            for (int at = 0; at < asked.size(); at++) {
                assertThat(found.get(at)).as(asked.get(at)).isEqualTo(index.of(asked.get(at)));
            }
            assertThat(found.stream().filter(places -> places.length == 1).count()).isEqualTo(changed.size());
        }
    }

    /** A batch's changes are recorded in chunks; a batch of many documents spans several and comes back whole. */
    @Test
    void aLargeBatchsChangesComeBackWhole() {
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            Map<String, long[]> changed = new HashMap<>();
            for (int document = 0; document < 30_000; document++) {
                changed.put(DocumentIndex.key("o" + document, "\"c\""),
                        new long[] {index.place("orders", "/w/a.parquet", document)});
            }
            index.prepare(1, changed, changed.size(), Map.of(), List.of());
        }
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            assertThat(index.catchUp("root", 1, true)).as("an index that names no commit is rebuilt").isFalse();
            index.apply(1, "root@1");
            assertThat(index.documents()).isEqualTo(30_000);
            assertThat(describe(index, index.of(DocumentIndex.key("o29999", "\"c\""))))
                    .containsExactly("orders /w/a.parquet#29999");
        }
    }

    @Test
    void clearingForgetsEverything() {
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            index.prepare(1, Map.of(O1, new long[] {index.place("orders", "/w/a.parquet", 3)}), 1, Map.of(),
                    List.of());
            index.apply(1, "root@1");
            index.clear();

            assertThat(index.of(O1)).isEmpty();
            assertThat(index.documents()).isZero();
            assertThat(index.marker()).isEmpty();
        }
        try (DocumentIndex index = DocumentIndex.open(directory, NO_FILES)) {
            assertThat(index.documents()).isZero();
            assertThat(DocumentIndex.position(index.place("orders", "/w/b.parquet", 4))).isEqualTo(4);
        }
    }

    private static List<String> describe(DocumentIndex index, long[] places) {
        return Arrays.stream(places).mapToObj(place -> index.file(place).table() + " " + index.file(place).location()
                + "#" + DocumentIndex.position(place)).sorted().toList();
    }

    private static long[] sorted(long[] places) {
        long[] copy = places.clone();
        Arrays.sort(copy);
        return copy;
    }
}
