package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.restfixture.RestCatalogServer;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A commit that fails with an exception, rather than a kill ({@link CommitStepCrashTest}), at every step of a commit:
 * the writer itself then decides what happens to the batch's files. Before the catalog commit is sent, the failure is
 * the batch's alone: its files go and the same tables commit the batch again. From the catalog commit on, the failure
 * (a REST catalog's {@code CommitStateUnknownException}: the catalog applied the batch and its answer was lost) leaves
 * the outcome unknown: no file of the batch may be deleted, the tables take no further batch, and opened again they
 * are at whichever batch the catalog holds, every file they list present, and go on from there exactly once.
 */
@Tag("slow")
class CommitStepFailureTest {
    /** Batches 1 and 2 make the tables; from batch 3 on, every batch takes the same steps to commit. */
    private static final long FIRST_OF_EVERY_SHAPE = 3;

    @TempDir
    Path work;

    @Test
    void aFailureAtAnyStepOfACommitToTheEmbeddedCatalogLosesNoCommittedFile() {
        Path mirror = work.resolve("mirror");
        // Until the SQL COMMIT, a failure rolls the catalog's transaction back: the batch is known not to be in it.
        failAtEveryStep(mirror, CommitStepWriter.config(mirror.toString(), "embedded"), CommitStep.CATALOG_COMMITTED);
    }

    @Test
    void aFailureAtAnyStepOfACommitToARestCatalogLosesNoCommittedFile() throws Exception {
        try (RestCatalogServer server = RestCatalogServer.start(work.resolve("rest"))) {
            Path mirror = work.resolve("mirror");
            // A failure where the request is sent may come from the request: its outcome is unknown from there on.
            failAtEveryStep(mirror, CommitStepWriter.config(mirror.toString(), "rest", server.uri(),
                    server.warehouse()), CommitStep.CATALOG_COMMITTING);
        }
    }

    /**
     * @param firstUnknown the first step at which a failure may have come after the catalog took the batch: from
     *     there on, the batch's outcome is unknown to the writer
     */
    private void failAtEveryStep(Path mirrorDirectory, MirrorConfig config, CommitStep firstUnknown) {
        List<Point> points = new ArrayList<>();
        try (ContainerTables tables = open(mirrorDirectory, config, (step, table) -> points.add(new Point(step,
                table)))) {
            for (long number = 1; number <= FIRST_OF_EVERY_SHAPE; number++) {
                points.clear();
                OrderBatches.commit(tables.begin(), number);
            }
        }
        System.out.println("the points of a commit: " + points);
        assertThat(points).as("the points of a commit").extracting(Point::step).contains(CommitStep.CATALOG_COMMITTING,
                CommitStep.CATALOG_COMMITTED, CommitStep.BATCH_COMMITTED);

        long acknowledged = FIRST_OF_EVERY_SHAPE;
        for (int index = 0; index < points.size(); index++) {
            Point failingPoint = points.get(index);
            String when = "after a failure " + failingPoint;
            boolean sent = failingPoint.step().compareTo(firstUnknown) >= 0;
            boolean landed = failingPoint.step().compareTo(CommitStep.CATALOG_COMMITTED) >= 0;
            FailAt failure = new FailAt(index, sent);
            try (ContainerTables tables = open(mirrorDirectory, config, failure)) {
                long number = acknowledged + 1;
                assertThatThrownBy(() -> OrderBatches.commit(tables.begin(), number)).as("the commit %s", when)
                        .hasRootCauseMessage(failure.message());
                assertThat(tables.needsReopening()).as("whether the tables must be opened again %s", when)
                        .isEqualTo(sent);
                if (sent) {
                    assertThatThrownBy(tables::begin).as("a batch begun %s", when)
                            .hasMessageContaining("open the container's tables again");
                } else {
                    // The batch's own failure: the same tables commit it again.
                    OrderBatches.commit(tables.begin(), number);
                    landed = true;
                }
            }
            long expected = landed ? acknowledged + 1 : acknowledged;
            OrderBatches.assertTablesAt(config, mirrorDirectory, expected, when);
            try (ContainerTables reopened = open(mirrorDirectory, config, CommitObserver.NONE)) {
                assertThat(reopened.batches()).as("the batch the tables opened at %s", when).isEqualTo(expected);
                OrderBatches.commit(reopened.begin(), expected + 1);
            }
            acknowledged = expected + 1;
            OrderBatches.assertTablesAt(config, mirrorDirectory, acknowledged, "after the batch that follows, " + when);
            System.out.printf("failure %s: the batch %s, then the tables went on to batch %d%n", failingPoint,
                    landed ? "landed" : "did not land", acknowledged);
        }
    }

    private static ContainerTables open(Path mirrorDirectory, MirrorConfig config, CommitObserver observer) {
        return ContainerTables.open(mirrorDirectory, OrderBatches.CONTAINER, FlattenerConfig.defaults(
                OrderBatches.ROOT), config, observer);
    }

    /** A step of a commit, and the table it is of (null: the whole batch). */
    private record Point(CommitStep step, TableIdentifier table) {
        @Override
        public String toString() {
            return "at " + step + " " + (table == null ? "-" : table.name());
        }
    }

    /**
     * Throws at the {@code index}th point of the first commit: an I/O error before the catalog commit is sent, and
     * from then on what a REST catalog answers when it cannot tell whether it applied the commit.
     */
    private static final class FailAt implements CommitObserver {
        private final int index;
        private final boolean sent;
        private int reached;

        FailAt(int index, boolean sent) {
            this.index = index;
            this.sent = sent;
        }

        String message() {
            return "injected failure at point " + index;
        }

        @Override
        public void reached(CommitStep step, TableIdentifier table) {
            if (reached++ != index) {
                return;
            }
            if (sent) {
                throw new CommitStateUnknownException(new IOException(message()));
            }
            throw new UncheckedIOException(new IOException(message()));
        }
    }
}
