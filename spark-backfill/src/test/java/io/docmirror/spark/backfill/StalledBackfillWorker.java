package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A Spark backfill's driver, in a JVM of its own, whose write stage stalls: the task writing part 0 marks a file and
 * then waits forever, while the other parts are written, so a test can SIGKILL the driver before its commit, with data
 * files on disk. Arguments: store URI, container, mirror directory, marker file.
 */
public final class StalledBackfillWorker {
    private StalledBackfillWorker() {
    }

    public static void main(String[] args) {
        StoreAddress store = new StoreAddress(args[0], null);
        String container = args[1];
        Path mirror = Path.of(args[2]);
        String marker = args[3];
        try (JavaSparkContext spark = new JavaSparkContext(new SparkConf().setMaster("local[2]")
                .setAppName("StalledBackfillWorker").set("spark.ui.enabled", "false"))) {
            new SparkBackfill(spark, mirror, MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0")),
                    FlattenerConfig.defaults(container), Clock.systemUTC())
                    .run(store, container, 3, parts -> new StallingPartZero(parts, container, marker));
        }
        throw new AssertionError("The stalled backfill of " + container + " committed");
    }

    private static final class StallingPartZero implements ContainerParts {
        private final ContainerParts parts;
        private final String writing;
        private final String marker;

        StallingPartZero(ContainerParts parts, String container, String marker) {
            this.parts = parts;
            this.writing = SparkBackfill.writingDescription(container, parts.count());
            this.marker = marker;
        }

        @Override
        public int count() {
            return parts.count();
        }

        @Override
        public void read(int part, Consumer<ChangeEvent> documents) {
            boolean stall = part == 0 && writing.equals(TaskContext.get().getLocalProperty("spark.job.description"));
            parts.read(part, documents);
            if (stall) {
                try {
                    Files.createFile(Path.of(marker));
                    new CountDownLatch(1).await();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("The stalled part was interrupted", e);
                }
            }
        }
    }
}
