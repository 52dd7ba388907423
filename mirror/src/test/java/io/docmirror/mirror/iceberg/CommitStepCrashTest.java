package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.restfixture.RestCatalogServer;
import io.docmirror.store.ChildProcesses;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer committing batches across a container's root, child and history tables is killed with SIGKILL at every
 * step of a commit ({@link CommitStep}), one kill per step and table: it halts at each step
 * ({@link CommitStepWriter}) and the test kills it there. After each kill: every table is at one batch (the previous
 * one when the kill came before the catalog took the batch, the new one after), Iceberg's reader and the SQL
 * endpoint's views ({@link ContainerSnapshot}) return exactly that batch's rows, no acknowledged batch is lost, the
 * files the kill left stay while they are young and go once they are old enough, and a restart goes on.
 */
@Tag("slow")
class CommitStepCrashTest {
    /** Batches 1 and 2 make the tables; from batch 3 on, every batch takes the same steps to commit. */
    private static final long FIRST_OF_EVERY_SHAPE = 3;
    private static final List<String> TABLES = List.of(OrderBatches.ROOT, OrderBatches.ITEMS, OrderBatches.HISTORY);

    @TempDir
    Path work;
    private Path mirrorDirectory;
    private String catalog;
    /** {@link CommitStepWriter}'s arguments. */
    private List<String> writerArguments;
    private MirrorConfig config;

    /** Every step of a batch's commit (a compaction's rewrite, off the batch's thread, is not one). */
    @Test
    void aKillAtAnyStepOfACommitLeavesEveryTableAtOneBatch() throws Exception {
        useCatalog("embedded");
        killAtEveryStep(EnumSet.complementOf(EnumSet.of(CommitStep.COMPACTION_REWRITTEN)), CommitStep.values()[0]);
    }

    /**
     * Through a REST catalog a batch is one commit request: a kill before it is sent leaves the previous batch, one
     * after its answer the new one. (A kill while the service applies the request is the service's to survive.)
     *
     * <p>The commit still goes through every step the REST catalog has, but the writer is killed only from
     * {@link CommitStep#INDEX_PREPARED} on: the steps before it (the flattener schema, data files, deletion vectors,
     * manifests, each table's staged metadata) only write files into the warehouse, by the same code whatever the
     * catalog, and a kill there is covered by the embedded catalog's test; from the document index on, what a kill
     * leaves depends on when the catalog takes the batch.
     */
    @Test
    void aKillAtAnyStepOfACommitToARestCatalogLeavesEveryTableAtOneBatch() throws Exception {
        try (RestCatalogServer server = RestCatalogServer.start(work.resolve("rest"))) {
            useCatalog("rest", server.uri(), server.warehouse());
            // No SQL transaction: the request moves the pointers.
            killAtEveryStep(EnumSet.complementOf(EnumSet.of(CommitStep.COMPACTION_REWRITTEN,
                    CommitStep.CATALOG_TRANSACTION_BEGUN, CommitStep.POINTER_MOVED)), CommitStep.INDEX_PREPARED);
        }
    }

    private void useCatalog(String... catalogArguments) {
        mirrorDirectory = work.resolve("mirror");
        catalog = catalogArguments[0];
        writerArguments = new ArrayList<>(List.of(mirrorDirectory.toString()));
        writerArguments.addAll(List.of(catalogArguments));
        config = CommitStepWriter.config(writerArguments.toArray(String[]::new));
    }

    /**
     * Checks that a commit reaches exactly {@code stepsOfTheCatalog}, then kills the writer at each point of a commit
     * from the first at {@code firstKilled} on.
     */
    private void killAtEveryStep(Set<CommitStep> stepsOfTheCatalog, CommitStep firstKilled) throws Exception {
        List<String> points;
        try (SteppedWriter writer = SteppedWriter.start(writerArguments)) {
            for (long batch = 1; batch < FIRST_OF_EVERY_SHAPE; batch++) {
                writer.commitBatch();
            }
            points = writer.commitBatch();
        }
        System.out.println("the points of a commit: " + points);
        assertThat(points.stream().map(CommitStepCrashTest::stepOf).collect(Collectors.toSet()))
                .as("the steps a commit reached, in this catalog").isEqualTo(stepsOfTheCatalog);
        assertThat(points.stream().filter(point -> stepOf(point) == CommitStep.METADATA_STAGED))
                .as("a metadata step per table").hasSize(TABLES.size());
        assertTablesAt(FIRST_OF_EVERY_SHAPE, "after the first batches");

        long acknowledged = FIRST_OF_EVERY_SHAPE;
        for (int point = 0; point < points.size(); point++) {
            if (stepOf(points.get(point)).compareTo(firstKilled) < 0) {
                continue;
            }
            long started = System.nanoTime();
            String killedAt = points.get(point);
            boolean afterCatalogCommit = stepOf(killedAt).compareTo(CommitStep.CATALOG_COMMITTED) >= 0;
            long expected = afterCatalogCommit ? acknowledged + 1 : acknowledged;
            Set<Path> before = files();
            try (SteppedWriter writer = SteppedWriter.start(writerArguments)) {
                writer.killAt(points, point);
            }
            String when = "after a kill " + killedAt;
            Set<Path> atKill = files();
            assertTablesAt(expected, when);
            int orphans = assertOrphansGoOnceOldEnough(afterCatalogCommit ? atKill : before, atKill, when);
            acknowledged = expected;
            System.out.printf("kill %s: tables at batch %d, %d orphan file(s) removed after reopening, %d ms%n",
                    killedAt, expected, orphans, (System.nanoTime() - started) / 1_000_000);
        }

        try (SteppedWriter writer = SteppedWriter.start(writerArguments)) {
            writer.commitBatch();
        }
        assertTablesAt(acknowledged + 1, "after a restart that follows the last kill");
    }

    /**
     * Every table is at {@code batch}, and holds exactly its rows: read through the SQL endpoint's path first (one
     * read of every pointer, the way a reader meets a crashed writer's catalog), then through Iceberg's reader.
     */
    private void assertTablesAt(long batch, String when) throws SQLException {
        if (catalog.equals("embedded")) {
            assertViewsAt(batch, when);
        }
        OrderBatches.assertTablesAt(config, mirrorDirectory, batch, when);
    }

    private void assertViewsAt(long batch, String when) throws SQLException {
        ContainerSnapshot snapshot = ContainerSnapshot.read(mirrorDirectory, OrderBatches.CONTAINER).orElseThrow();
        for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
            assertThat(table.table().currentSnapshot().summary()).as("%s in the SQL endpoint's snapshot %s",
                    table.name(), when).containsEntry(MirrorSummary.BATCH, Long.toString(batch));
        }
        String root = "\"" + OrderBatches.ROOT + "\"";
        try (DuckDBConnection duckDb = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = duckDb.createStatement()) {
            snapshot.loadDeletionVectors(duckDb);
            statement.execute("CREATE VIEW " + root + " AS " + snapshot.currentState(OrderBatches.ROOT, root));
            assertThat(rows(statement, "SELECT id, v FROM " + root)).as("orders in DuckDB %s", when)
                    .containsExactlyInAnyOrderElementsOf(OrderBatches.orders(batch));
            assertThat(rows(statement, "SELECT _id, sku FROM (" + snapshot.currentState(OrderBatches.ITEMS, root)
                    + ")")).as("items in DuckDB %s", when)
                    .containsExactlyInAnyOrderElementsOf(OrderBatches.items(batch));
            assertThat(rows(statement, "SELECT id, _lsn FROM (" + snapshot.history() + ")"))
                    .as("history in DuckDB %s", when).containsExactlyInAnyOrderElementsOf(OrderBatches.history(batch));
        }
    }

    private static List<List<Object>> rows(Statement statement, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (ResultSet result = statement.executeQuery(sql)) {
            while (result.next()) {
                rows.add(List.of(result.getObject(1), result.getObject(2)));
            }
        }
        return rows;
    }

    /**
     * Reopening the mirror keeps the files the kill left while they are younger than {@code mirror.snapshots.keep-ms}
     * (a writer may still be about to commit them), and removes them once they are older: then the container's
     * files are {@code reachable}. Returns how many went.
     */
    private int assertOrphansGoOnceOldEnough(Set<Path> reachable, Set<Path> atKill, String when) throws IOException {
        // The document index is at the catalog's commit or one behind it with that commit's changes recorded:
        // never rebuilt from the tables.
        assertThat(reopen(config)).as("the document index rebuilt on reopening %s", when).isFalse();
        assertThat(files()).as("the files on reopening, under the default keep-ms, %s", when).isEqualTo(atKill);
        // keep-ms 0: every file written before now is old enough.
        reopen(config.withCompaction(config.compactionFiles(), Duration.ZERO));
        assertThat(files()).as("the files on reopening once they are old enough, %s", when).isEqualTo(reachable);
        return atKill.size() - reachable.size();
    }

    /**
     * Opens the tables, removes the orphan files as their first upkeep does, and closes them; returns whether opening
     * them rebuilt the document index.
     */
    private boolean reopen(MirrorConfig reopened) {
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, OrderBatches.CONTAINER,
                FlattenerConfig.defaults(OrderBatches.ROOT), reopened)) {
            tables.removeOrphanFiles();
            return tables.indexRebuilt();
        }
    }

    /** Every file under the container's warehouse folder. */
    private Set<Path> files() throws IOException {
        Path folder = LocalFileIO.pathOf(MirrorTables.containerLocation(config.catalog().settings(mirrorDirectory)
                .warehouse(), OrderBatches.CONTAINER));
        try (Stream<Path> walk = Files.walk(folder)) {
            return walk.filter(Files::isRegularFile).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /** The step of a point {@code at <step> <table>}. */
    private static CommitStep stepOf(String point) {
        return CommitStep.valueOf(point.split(" ")[1]);
    }

    /** A {@link CommitStepWriter} child process: it goes on only when told to. */
    private static final class SteppedWriter implements AutoCloseable {
        private final Process process;
        private final BufferedReader out;
        private final PrintStream in;

        private SteppedWriter(Process process) {
            this.process = process;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        /** Starts the writer (a restart of the mirror), which waits once it has opened the tables. */
        static SteppedWriter start(List<String> arguments) throws IOException {
            return new SteppedWriter(ChildProcesses.startJava(CommitStepWriter.class.getName(), "ready",
                    arguments.toArray(String[]::new)));
        }

        private void goOn() {
            in.println("go");
        }

        /**
         * Lets the writer (waiting after "ready" or "committed") commit one batch; returns the points it halted at,
         * {@code at <step> <table>}.
         */
        List<String> commitBatch() throws IOException {
            goOn();
            List<String> points = new ArrayList<>();
            String line;
            while ((line = out.readLine()) != null && line.startsWith("at ")) {
                points.add(line);
                goOn();
            }
            assertThat(line).as("what the writer printed after %s", points).startsWith("committed ");
            return points;
        }

        /**
         * Lets the writer go on through the first {@code point} of {@code points} of its next batch, checking it
         * halts at each, and SIGKILLs it at the one after.
         */
        void killAt(List<String> points, int point) throws IOException, InterruptedException {
            goOn();
            for (int index = 0; index <= point; index++) {
                assertThat(out.readLine()).as("where the writer halted").isEqualTo(points.get(index));
                if (index < point) {
                    goOn();
                }
            }
            ChildProcesses.sigkill(process);
            assertThat(out.readLine()).as("what the writer printed after its kill").isNull();
        }

        /** Ends a writer that was not killed: it ends once its input does. */
        @Override
        public void close() throws InterruptedException {
            in.close();
            if (process.isAlive()) {
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the writer ended").isTrue();
            }
        }
    }
}
