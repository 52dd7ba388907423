package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.MirrorConfig;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * The Spark backfill's main class, for {@code spark-submit}: the master, the executors and their cores are Spark's
 * options, the backfill's are these. See README, "Backfilling on Spark".
 */
@Command(name = "docmirror-spark-backfill", mixinStandardHelpOptions = true,
        description = {"Backfill a container's mirror on Apache Spark: the store's snapshot of the container, read and "
                + "written in parallel by the executors, committed by the driver in one catalog commit. "
                + "`docmirror mirror run` then streams on from the snapshot with no gap and no duplicate.",
                "The driver needs the mirror's directory (its catalog settings and the container's lock); the "
                        + "executors need the store's HTTP API and the warehouse."})
public final class SparkBackfillCommand implements Callable<Integer> {
    @Option(names = "--store", required = true, paramLabel = "URL",
            description = "The store's HTTP API, as `docmirror store serve` serves it: http://host:8081.")
    String store;

    @Option(names = "--store-key-env", defaultValue = "DOCMIRROR_STORE_KEY", paramLabel = "NAME",
            description = "The environment variable that holds the store's key, read by the driver and sent to the "
                    + "executors (default: ${DEFAULT-VALUE}; none when unset).")
    String storeKeyVariable;

    @Option(names = "--container", required = true, paramLabel = "NAME", description = "The container to backfill.")
    String container;

    @Option(names = "--mirror", required = true, paramLabel = "DIR",
            description = "The mirror's directory on the driver (DATA/mirror of a docmirror data directory).")
    Path mirror;

    @Option(names = "--parts-per-range", defaultValue = "8", paramLabel = "N",
            description = "How many parts each feed range is cut into at most: each part is one task of each stage "
                    + "(default: ${DEFAULT-VALUE}).")
    int partsPerRange;

    @Option(names = "--conf", paramLabel = "KEY=VALUE",
            description = "A mirror.* or flatten.* option of docmirror's configuration (docs/configuration.md), as "
                    + "the mirror's daemon has it; repeatable.")
    Map<String, String> options = new TreeMap<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new SparkBackfillCommand()).execute(args));
    }

    @Override
    public Integer call() {
        Map<String, String> mirrorOptions = new TreeMap<>();
        Map<String, String> flattenOptions = new TreeMap<>();
        options.forEach((key, value) -> {
            if (key.startsWith("mirror.")) {
                mirrorOptions.put(key, value);
            } else if (key.startsWith(FlattenerConfig.PREFIX)) {
                flattenOptions.put(key, value);
            } else {
                throw new CommandLine.ParameterException(new CommandLine(this), "--conf " + key + ": the Spark "
                        + "backfill takes mirror.* and flatten.* options only");
            }
        });
        MirrorConfig mirrorConfig = MirrorConfig.fromProperties(mirrorOptions);
        FlattenerConfig flattenerConfig = FlattenerConfig.fromProperties(container, flattenOptions);
        StoreAddress address = new StoreAddress(store, System.getenv(storeKeyVariable));
        long started = System.nanoTime();
        SparkBackfill.Result result;
        try (JavaSparkContext spark = new JavaSparkContext(new SparkConf()
                .setAppName("docmirror backfill of " + container))) {
            result = new SparkBackfill(spark, mirror, mirrorConfig, flattenerConfig, Clock.systemUTC())
                    .run(address, container, partsPerRange);
        }
        System.out.printf(Locale.ROOT, "Backfilled %,d documents of container %s in %.1f s (%d parts, the schema "
                        + "in %d rounds); the mirror is at %s and streams on from LSNs %s%n", result.documents(),
                container, (System.nanoTime() - started) / 1e9, result.parts(), result.schemaRounds(),
                result.position(), result.rangeLsns());
        return 0;
    }
}
