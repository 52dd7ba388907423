package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A number column widens (BIGINT, DOUBLE, DECIMAL(38,s)) when a later batch brings a value its type cannot hold, and
 * the rows written before are copied into the wider column. Every value must still come back exactly, in SQL and
 * after a compaction folds the files into one: a value brought to DOUBLE on the way would round
 * (0.1234567890123456789 as 0.1234567890123456768).
 */
class NumberWideningTest {
    private static final MirrorConfig NEVER_COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "0"));
    private static final MirrorConfig COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "2", "mirror.snapshots.keep", "1", "mirror.snapshots.keep-ms", "0"));

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("numbers", "/pk").withAnalyticalTtl(-1));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void bigintToDoubleToDecimalAcrossCommits() throws Exception {
        assertExactAcrossCommits("w", "1", "1.5", "0.1234567890123456789");
    }

    @Test
    void bigintToDecimalBeyondInt64AcrossCommits() throws Exception {
        assertExactAcrossCommits("b2", "1", "2.5", "9223372036854775809");
    }

    @Test
    void doubleToDecimalAcrossCommits() throws Exception {
        assertExactAcrossCommits("d", "0.5", "0.1", "12345678901234567890.5", "9007199254740993", "1e-7");
    }

    @Test
    void listElementsWidenAcrossCommits() throws Exception {
        List<String> lists = List.of("[1, 2]", "[0.1, 2.5]", "[0.1234567890123456789]");
        for (int index = 0; index < lists.size(); index++) {
            store.createItem("numbers", "{\"id\":\"l" + index + "\",\"pk\":\"p\",\"l\":" + lists.get(index) + "}");
            sync(NEVER_COMPACTS);
        }
        List<List<Object>> rows = MirrorSql.query(work.resolve("mirror"), "numbers",
                "SELECT id, CAST(l AS VARCHAR) FROM numbers ORDER BY id");
        assertThat(rows).containsExactly(
                List.of("l0", "[1.0000000000000000000, 2.0000000000000000000]"),
                List.of("l1", "[0.1000000000000000000, 2.5000000000000000000]"),
                List.of("l2", "[0.1234567890123456789]"));
    }

    @Test
    void twoColumnsWideningInOneBatchCopyEachRowOnceAndLaterUpdatesFindTheCopies() throws Exception {
        store.createItem("numbers", "{\"id\":\"t0\",\"pk\":\"p\",\"a\":1,\"b\":1}");
        store.createItem("numbers", "{\"id\":\"t1\",\"pk\":\"p\",\"a\":2,\"b\":2}");
        sync(NEVER_COMPACTS);
        // One batch: a widens (copying the committed rows of t0 and t1), t1 changes (its copy goes), then b widens.
        store.createItem("numbers", "{\"id\":\"t2\",\"pk\":\"p\",\"a\":1.5}");
        store.upsertItem("numbers", "{\"id\":\"t1\",\"pk\":\"p\",\"a\":5,\"b\":2}");
        store.createItem("numbers", "{\"id\":\"t3\",\"pk\":\"p\",\"b\":2.5}");
        sync(NEVER_COMPACTS);
        assertThat(MirrorSql.query(work.resolve("mirror"), "numbers",
                "SELECT id, CAST(a AS VARCHAR), CAST(b AS VARCHAR) FROM numbers ORDER BY id"))
                .as("each document once, after two widenings in one batch").containsExactly(
                        List.of("t0", "1.0", "1.0"), List.of("t1", "5.0", "2.0"), Arrays.asList("t2", "1.5", null),
                        Arrays.asList("t3", null, "2.5"));
        // The copied rows' places moved with them: an update deletes the copy, not a row that is gone.
        store.upsertItem("numbers", "{\"id\":\"t0\",\"pk\":\"p\",\"a\":7,\"b\":8}");
        store.deleteItem("numbers", PartitionKey.of("p"), "t1");
        sync(NEVER_COMPACTS);
        assertThat(MirrorSql.query(work.resolve("mirror"), "numbers",
                "SELECT id, CAST(a AS VARCHAR), CAST(b AS VARCHAR) FROM numbers ORDER BY id"))
                .as("after an update and a delete of copied documents").containsExactly(
                        List.of("t0", "7.0", "8.0"), Arrays.asList("t2", "1.5", null), Arrays.asList("t3", null, "2.5"));
    }

    @Test
    void theDocumentsAWideningCopiedAreFoundWhereTheirRowsWent() throws Exception {
        for (int index = 0; index < 3; index++) {
            store.createItem("numbers", "{\"id\":\"t" + index + "\",\"pk\":\"p\",\"a\":" + index
                    + ",\"items\":[{\"n\":" + index + "},{\"n\":1}]}");
        }
        sync(NEVER_COMPACTS);
        // The widening copies every committed row of the root table: the index learns where they went at the commit.
        store.createItem("numbers", "{\"id\":\"t3\",\"pk\":\"p\",\"a\":1.5,\"items\":[]}");
        sync(NEVER_COMPACTS);
        store.upsertItem("numbers", "{\"id\":\"t0\",\"pk\":\"p\",\"a\":7,\"items\":[{\"n\":9}]}");
        store.deleteItem("numbers", PartitionKey.of("p"), "t1");
        sync(NEVER_COMPACTS);
        assertThat(MirrorSql.query(work.resolve("mirror"), "numbers",
                "SELECT id, CAST(a AS VARCHAR) FROM numbers ORDER BY id")).containsExactly(
                        List.of("t0", "7.0"), List.of("t2", "2.0"), List.of("t3", "1.5"));
        assertThat(MirrorSql.query(work.resolve("mirror"), "numbers",
                "SELECT _id, n FROM numbers__items ORDER BY _id, n")).containsExactly(
                        List.of("t0", 9L), List.of("t2", 1L), List.of("t2", 2L));
    }

    /** One document per commit, each with {@code path} set to the next number; checks SQL before and after compaction. */
    private void assertExactAcrossCommits(String path, String... numbers) throws Exception {
        for (int index = 0; index < numbers.length; index++) {
            store.createItem("numbers", "{\"id\":\"t" + index + "\",\"pk\":\"p\",\"" + path + "\":" + numbers[index]
                    + "}");
            sync(NEVER_COMPACTS);
        }
        assertThat(values(path)).as("before the next batch").isEqualTo(expected(numbers));
        // A widening rewrites the column's rows into the new type; a later batch adds a file of its own beside them.
        String[] all = Arrays.copyOf(numbers, numbers.length + 1);
        all[numbers.length] = numbers[numbers.length - 1];
        store.createItem("numbers", "{\"id\":\"u\",\"pk\":\"p\",\"" + path + "\":" + all[numbers.length] + "}");
        sync(NEVER_COMPACTS);
        assertThat(values(path)).as("before compaction").isEqualTo(expected(all));
        assertThat(rootFiles()).as("files before compaction").hasSizeGreaterThanOrEqualTo(2);

        sync(COMPACTS);
        assertThat(rootFiles()).as("files after compaction").hasSize(1);
        assertThat(values(path)).as("after compaction").isEqualTo(expected(all));
    }

    private List<String> rootFiles() {
        return MirrorFiles.dataFiles(work.resolve("mirror"), "numbers", "numbers");
    }

    private List<BigDecimal> values(String path) throws Exception {
        List<BigDecimal> values = new ArrayList<>();
        for (List<Object> row : MirrorSql.query(work.resolve("mirror"), "numbers",
                "SELECT CAST(\"" + path + "\" AS VARCHAR) FROM numbers ORDER BY id")) {
            values.add(new BigDecimal((String) row.get(0)).stripTrailingZeros());
        }
        return values;
    }

    private static List<BigDecimal> expected(String... numbers) {
        return Arrays.stream(numbers).map(number -> new BigDecimal(number).stripTrailingZeros()).toList();
    }

    private void sync(MirrorConfig config) {
        try (FeedMirror mirror = new FeedMirror(store, work.resolve("mirror"), config, FlattenerConfig::defaults,
                clock)) {
            mirror.sync();
        }
    }
}
