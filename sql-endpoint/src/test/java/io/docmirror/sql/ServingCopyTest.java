package io.docmirror.sql;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.Rebuild;
import io.docmirror.mirror.Repair;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's copy of the tables in DuckDB's storage ({@link ServingCopy}) holds exactly the rows Iceberg's own
 * reader returns, every table and every column, after every kind of commit, whether it followed the commits one by
 * one or was made at once; and it persists, so a restarted endpoint catches up from it.
 */
class ServingCopyTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);
    private static final MirrorConfig COMPACTS_EVERY_SECOND_FILE = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "2"));
    private static final SqlConfig AT_ONCE = SqlConfig.defaults().withRefreshInterval(Duration.ZERO);

    @TempDir
    Path work;

    @Test
    void theCopyHoldsWhatIcebergReadsAfterEveryKindOfCommit() throws Exception {
        try (MirroredData data = new MirroredData(work)) {
            data.store.createContainer(ORDERS);
            for (int order = 0; order < 30; order++) {
                data.store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 4
                        + "\",\"total\":" + order + ",\"items\":[{\"sku\":\"s" + order + "\"}]}");
            }
            data.sync();
            try (SqlEndpoint following = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE)) {
                assertCopiesReadAsIcebergDoes(data, following, "after the first commit");

                for (int round = 0; round < 3; round++) {
                    data.store.upsertItem("orders", "{\"id\":\"o" + round + "\",\"customerId\":\"c" + round % 4
                            + "\",\"total\":" + (round + 0.5) + ",\"items\":[],\"note\":\"n" + round + "\"}");
                    data.store.deleteItem("orders", PartitionKey.of("c" + (10 + round) % 4), "o" + (10 + round));
                    data.sync(COMPACTS_EVERY_SECOND_FILE);
                    assertCopiesReadAsIcebergDoes(data, following, "after streamed batch " + round
                            + " (a widening, a new column, deletes, compactions)");
                }

                new Rebuild(data.mirrorDirectory(), MirrorConfig.defaults(), data.clock)
                        .run("orders", FlattenerConfig.defaults("orders"), changes -> { });
                assertCopiesReadAsIcebergDoes(data, following, "after a rebuild");

                data.store.deleteContainer("orders");
                data.store.createContainer(ORDERS);
                data.store.upsertItem("orders", "{\"id\":\"again\",\"customerId\":\"c1\",\"total\":1}");
                data.sync();
                assertCopiesReadAsIcebergDoes(data, following, "after the container was created again");
            }
        }
    }

    /**
     * A backfill, analytical-TTL commits and a repair. The clock starts now, so the views' own TTL filter (counted from
     * the real time) keeps every row the mirror's TTL commits (counted from the advanced clock) kept.
     */
    @Test
    void theCopyFollowsABackfillTtlCommitsAndARepair() throws Exception {
        TestingClock now = TestingClock.atEpochSecond(Instant.now().getEpochSecond());
        ContainerProperties forAnHour = ORDERS.withAnalyticalTtl(3600);
        try (MirroredData data = new MirroredData(work, now)) {
            data.store.createContainer(forAnHour);
            for (int order = 0; order < 20; order++) {
                data.store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 3
                        + "\",\"total\":" + order + ",\"items\":[{\"sku\":\"s" + order + "\"}]}");
            }
            new Backfill(data.store, data.mirrorDirectory(), MirrorConfig.defaults(),
                    FlattenerConfig.defaults("orders"), now).run("orders", Backfill.Listener.NONE);
            try (SqlEndpoint following = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE)) {
                assertCopiesReadAsIcebergDoes(data, following, "after a backfill");

                now.advanceSeconds(2000);
                for (int order = 20; order < 30; order++) {
                    data.store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c1\",\"total\":"
                            + order + ",\"items\":[{\"sku\":\"t" + order + "\"}]}");
                }
                data.sync();
                now.advanceSeconds(2000);
                data.sync();
                assertThat(rootCommitKinds(data)).as("the mirror's commits").contains("ttl");
                assertCopiesReadAsIcebergDoes(data, following, "after TTL commits");

                String damaged = currentRootFile(data);
                Files.write(LocalFileIO.pathOf(damaged), new byte[] {1, 2, 3});
                assertThat(new Repair(data.store, data.mirrorDirectory(), MirrorConfig.defaults(), now)
                        .run("orders").damages()).hasSize(1);
                assertCopiesReadAsIcebergDoes(data, following, "after a repair of " + damaged);
            }
        }
    }

    private static List<String> rootCommitKinds(MirroredData data) {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(data.mirrorDirectory()))) {
            List<String> kinds = new ArrayList<>();
            catalog.catalog().loadTable(MirrorTables.table("orders", "orders")).snapshots()
                    .forEach(snapshot -> kinds.add(snapshot.summary().get(MirrorSummary.COMMIT_KIND)));
            return kinds;
        }
    }

    private static String currentRootFile(MirroredData data) throws IOException {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(data.mirrorDirectory()));
                CloseableIterable<FileScanTask> tasks = catalog.catalog().loadTable(MirrorTables.table("orders",
                        "orders")).newScan().planFiles()) {
            return tasks.iterator().next().file().location();
        }
    }

    @Test
    void aRestartedEndpointCatchesUpFromItsCopy() throws Exception {
        try (MirroredData data = new MirroredData(work)) {
            data.store.createContainer(ORDERS);
            for (int order = 0; order < 10; order++) {
                data.store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c1\",\"total\":"
                        + order + "}");
            }
            data.sync();
            List<List<Object>> filesBefore;
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE);
                    Connection connection = endpoint.connect()) {
                filesBefore = SqlEndpointTest.rows(connection, "SELECT file_id, path FROM docmirror_copy.files");
            }
            Path copy = MirrorLayout.servingCopyDirectory(data.mirrorDirectory()).resolve("copy.duckdb");
            assertThat(copy).as("the copy, kept in the mirror directory").exists();

            data.store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":100}");
            data.sync();
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE);
                    Connection connection = endpoint.connect()) {
                List<List<Object>> filesAfter = SqlEndpointTest.rows(connection,
                        "SELECT file_id, path FROM docmirror_copy.files");
                assertThat(filesAfter).as("the files copied before the restart, kept with their ids")
                        .containsAll(filesBefore).hasSizeGreaterThan(filesBefore.size());
                assertThat(SqlEndpointTest.rows(connection, "SELECT count(*), sum(total)::BIGINT FROM orders"))
                        .containsExactly(List.of(10L, 45L - 1 + 100));
                assertCopiesReadAsIcebergDoes(data, endpoint, "after a restart");
            }
        }
    }

    /**
     * An endpoint killed with SIGKILL while it copies (at random moments: opening, applying a commit, waiting) leaves
     * a copy that the next endpoint opens and brings up to date: each commit was applied whole or not at all.
     */
    @Test
    @Tag("slow")
    void anEndpointKilledWhileItCopiesLeavesACopyTheNextOneCompletes() throws Exception {
        try (MirroredData data = new MirroredData(work)) {
            data.store.createContainer(ORDERS);
            Random random = new Random(43);
            List<String> seen = new ArrayList<>();
            for (int kill = 0; kill < 6; kill++) {
                writeAndSync(data, random, kill);
                Path output = work.resolve("follower-" + kill + ".txt");
                Process follower = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(), "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                        CopyFollower.class.getName(), data.mirrorDirectory().toString())
                        .redirectErrorStream(true).redirectOutput(output.toFile()).start();
                try {
                    if (kill % 2 == 1) {
                        // Killed while it applies commits made after it opened, at a moment left to chance.
                        awaitLine(output, "opened", follower);
                        writeAndSync(data, random, kill);
                        Thread.sleep(random.nextInt(300));
                    } else {
                        // Killed as it opens: while it makes or catches up its copy, or just after.
                        Thread.sleep(500 + random.nextInt(2500));
                    }
                } finally {
                    follower.destroyForcibly();
                }
                assertThat(follower.waitFor(60, TimeUnit.SECONDS)).isTrue();
                List<String> printed = Files.readAllLines(output).stream()
                        .filter(line -> line.startsWith("opened") || line.startsWith("applied")
                                || line.contains("Exception")).toList();
                seen.add("kill " + kill + " after: " + printed);
            }
            System.out.println("Where the kills landed:\n" + String.join("\n", seen));
            assertThat(MirrorLayout.servingCopyDirectory(data.mirrorDirectory()).resolve("copy.duckdb")).exists();
            try (SqlEndpoint following = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE)) {
                assertCopiesReadAsIcebergDoes(data, following, "after endpoints were killed while copying");
            }
        }
    }

    /** Three commits of 300 upserts to random orders of 600. */
    private static void writeAndSync(MirroredData data, Random random, int round) {
        for (int commit = 0; commit < 3; commit++) {
            for (int order = 0; order < 300; order++) {
                int id = random.nextInt(600);
                data.store.upsertItem("orders", "{\"id\":\"o" + id + "\",\"customerId\":\"c" + id % 7
                        + "\",\"total\":" + random.nextInt(1000) + ",\"items\":[{\"sku\":\"s" + round
                        + "\"},{\"sku\":\"t" + commit + "\"}]}");
            }
            data.sync(COMPACTS_EVERY_SECOND_FILE);
        }
    }

    /** Waits (up to three minutes) for {@code process} to print a line starting with {@code start}. */
    private static void awaitLine(Path output, String start, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (Files.readAllLines(output).stream().anyMatch(line -> line.startsWith(start))) {
                return;
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("The follower never printed '" + start + "'; it printed:\n"
                + Files.readString(output));
    }

    @Test
    void aDamagedCopyIsMadeAgainFromTheTables() throws Exception {
        try (MirroredData data = new MirroredData(work)) {
            data.store.createContainer(ORDERS);
            data.store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":1}");
            data.sync();
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE)) {
                assertThat(endpoint.versions()).containsKey("orders");
            }
            Path copy = MirrorLayout.servingCopyDirectory(data.mirrorDirectory()).resolve("copy.duckdb");
            Files.write(copy, "not a DuckDB database".getBytes());
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE);
                    Connection connection = endpoint.connect()) {
                assertThat(SqlEndpointTest.rows(connection, "SELECT id FROM orders")).containsExactly(List.of("o1"));
            }
        }
    }

    @Test
    void aSecondEndpointOverTheSameMirrorServesFromACopyOfItsOwn() throws Exception {
        try (MirroredData data = new MirroredData(work)) {
            data.store.createContainer(ORDERS);
            data.store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":1}");
            data.sync();
            try (SqlEndpoint first = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE);
                    SqlEndpoint second = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE)) {
                data.store.upsertItem("orders", "{\"id\":\"o2\",\"customerId\":\"c1\",\"total\":2}");
                data.sync();
                for (SqlEndpoint endpoint : List.of(first, second)) {
                    try (Connection connection = endpoint.connect()) {
                        assertThat(SqlEndpointTest.rows(connection, "SELECT id FROM orders ORDER BY id"))
                                .containsExactly(List.of("o1"), List.of("o2"));
                    }
                }
            }
        }
    }

    /**
     * Every table of every container, read through the endpoint's views, holds exactly the rows Iceberg's own reader
     * returns; and so does a copy made at once from the tables (an endpoint opened now, beside {@code following},
     * makes a copy of its own).
     */
    private static void assertCopiesReadAsIcebergDoes(MirroredData data, SqlEndpoint following, String when)
            throws SQLException {
        try (SqlEndpoint fresh = SqlEndpoint.open(data.mirrorDirectory(), AT_ONCE)) {
            for (SqlEndpoint endpoint : List.of(following, fresh)) {
                String which = (endpoint == following ? "the copy that followed the commits" : "a new copy") + " "
                        + when;
                try (Connection connection = endpoint.connect();
                        CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(
                                data.mirrorDirectory()))) {
                    List<List<Object>> tables = SqlEndpointTest.rows(connection,
                            "SELECT container, table_name, sql_name FROM docmirror_tables");
                    assertThat(tables).as("tables of %s", which).isNotEmpty();
                    for (List<Object> table : tables) {
                        String container = (String) table.get(0);
                        String name = (String) table.get(1);
                        assertViewReadsAsIceberg(connection, (String) table.get(2), catalog.catalog().loadTable(
                                MirrorTables.table(container, name)), which);
                        if (table.get(1).equals(container)) {
                            assertViewReadsAsIceberg(connection, container + "_history", catalog.catalog()
                                    .loadTable(MirrorTables.table(container, MirrorTables.history(name))), which);
                        }
                    }
                }
            }
        }
    }

    private static void assertViewReadsAsIceberg(Connection connection, String view, Table table, String when)
            throws SQLException {
        String[] columns = table.schema().columns().stream().map(Types.NestedField::name).toArray(String[]::new);
        List<List<Object>> expected = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                List<Object> row = new ArrayList<>();
                for (String column : columns) {
                    row.add(normalized(record.getField(column)));
                }
                expected.add(row);
            }
        } catch (IOException e) {
            throw new SQLException("Cannot read " + table.name(), e);
        }
        List<String> quoted = Arrays.stream(columns).map(column -> "\"" + column.replace("\"", "\"\"") + "\"")
                .toList();
        List<List<Object>> actual = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(
                "SELECT " + String.join(", ", quoted) + " FROM \"" + view + "\"")) {
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= columns.length; column++) {
                    Object value = result.getObject(column);
                    row.add(normalized(value instanceof Array array ? Arrays.asList((Object[]) array.getArray())
                            : value));
                }
                actual.add(row);
            }
        }
        assertThat(actual).as("%s (%s) %s", view, table.name(), when).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Values as both readers agree to spell them: numbers by exact value, times as instants, lists as lists. */
    private static Object normalized(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(ServingCopyTest::normalized).toList();
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Double real) {
            return "double:" + real;
        }
        if (value instanceof java.time.OffsetDateTime time) {
            return time.toInstant().toString();
        }
        if (value instanceof java.time.LocalDateTime time) {
            return time.toString();
        }
        if (value instanceof java.sql.Timestamp time) {
            return time.toLocalDateTime().toString();
        }
        return value;
    }
}
