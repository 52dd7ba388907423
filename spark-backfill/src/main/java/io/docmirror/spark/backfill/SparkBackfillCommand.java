package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.SnapshotReader;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.http.HttpStoreClient;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * The Spark backfill's main class, for {@code spark-submit}: the master, the executors and their cores are Spark's
 * options, the backfill's are these. See README, "Backfilling on Spark".
 *
 * <p>Every option is checked, and the store asked for the container, before Spark starts: a mistake is one line on
 * stderr naming the option, the value and the rule (exit status 2 for a usage error, 1 for a store or mirror that
 * refuses), and leaves the mirror's directory as it was.
 */
@Command(name = SparkBackfillCommand.NAME, mixinStandardHelpOptions = true,
        description = {"Backfill a container's mirror on Apache Spark: the store's snapshot of the container, read and "
                + "written in parallel by the executors, committed by the driver in one catalog commit. "
                + "`docmirror mirror run` then streams on from the snapshot with no gap and no duplicate.",
                "The driver needs the mirror's directory (its catalog settings and the container's lock); the "
                        + "executors need the store's HTTP API and the warehouse."})
public final class SparkBackfillCommand implements Callable<Integer> {
    static final String NAME = "docmirror-spark-backfill";
    /** The variable the store's key comes from when {@code --store-key-env} names none. */
    static final String DEFAULT_STORE_KEY_VARIABLE = "DOCMIRROR_STORE_KEY";
    /** The most parts a feed range is cut into: what the store splits one into at most. */
    static final int MAX_PARTS_PER_RANGE = SnapshotReader.MAX_SPLIT_INTERVALS;

    private final Function<String, String> environment;

    @Spec
    CommandSpec spec;

    private String store;

    @Option(names = "--store-key-env", paramLabel = "NAME",
            description = "The environment variable that holds the store's key, read by the driver and sent to the "
                    + "executors. A variable named here must be set; by default the key comes from $"
                    + DEFAULT_STORE_KEY_VARIABLE + ", and none is sent when that is unset.")
    String storeKeyVariable;

    @Option(names = "--container", required = true, paramLabel = "NAME", description = "The container to backfill.")
    String container;

    @Option(names = "--mirror", required = true, paramLabel = "DIR",
            description = "The mirror's directory on the driver (DATA/mirror of a docmirror data directory); it "
                    + "must exist (create it for a container's first mirror).")
    Path mirror;

    private int partsPerRange;

    @Option(names = "--conf", paramLabel = "KEY=VALUE",
            description = "A mirror.* or flatten.* option of docmirror's configuration (docs/configuration.md), as "
                    + "the mirror's daemon has it; repeatable. Unknown keys and invalid values are refused.")
    Map<String, String> options = new TreeMap<>();

    /** The command, reading the store's key from the process's environment. */
    public SparkBackfillCommand() {
        this(System::getenv);
    }

    /** @param environment the value of an environment variable by name, null when it is unset */
    SparkBackfillCommand(Function<String, String> environment) {
        this.environment = requireNonNull(environment, "environment is null");
    }

    @Option(names = "--store", required = true, paramLabel = "URL",
            description = "The store's HTTP API, as `docmirror store serve` serves it: http://host:8081 (or https).")
    void store(String url) {
        String rule = "the store's URL is http://HOST:PORT or https://HOST:PORT";
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value '" + url + "' for option '--store': "
                    + rule + " (" + e.getMessage() + ")");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())
                || uri.getHost() == null) {
            throw new ParameterException(spec.commandLine(), "Invalid value '" + url + "' for option '--store': "
                    + rule);
        }
        store = url;
    }

    @Option(names = "--parts-per-range", defaultValue = "8", paramLabel = "N",
            description = "How many parts each feed range is cut into at most, from 1 to " + MAX_PARTS_PER_RANGE
                    + " (the most the store splits a feed range into): each part is one task of each stage "
                    + "(default: ${DEFAULT-VALUE}).")
    void partsPerRange(int parts) {
        if (parts < 1 || parts > MAX_PARTS_PER_RANGE) {
            throw new ParameterException(spec.commandLine(), "Invalid value " + parts + " for option "
                    + "'--parts-per-range': a feed range is cut into 1 to " + MAX_PARTS_PER_RANGE + " parts");
        }
        partsPerRange = parts;
    }

    public static void main(String[] args) {
        System.exit(commandLine(new SparkBackfillCommand()).execute(args));
    }

    /**
     * The command line that runs {@code command}: usage errors exit with 2, failures with 1; a failure a user acts on
     * (the store's refusal, a rule of the mirror's) is one line on stderr, anything else keeps its stack trace.
     */
    static CommandLine commandLine(SparkBackfillCommand command) {
        CommandLine commandLine = new CommandLine(command);
        commandLine.setExecutionExceptionHandler((exception, line, parseResult) -> {
            if (exception instanceof StoreException || exception instanceof IllegalArgumentException) {
                line.getErr().println(NAME + ": " + exception.getMessage());
            } else {
                line.getErr().println(NAME + ": " + exception);
                exception.printStackTrace(line.getErr());
            }
            return CommandLine.ExitCode.SOFTWARE;
        });
        return commandLine;
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
                // Not the value: another tool's option may hold a secret.
                throw usage("--conf " + key + ": the Spark backfill takes mirror.* and flatten.* options only "
                        + "(Spark's own options are spark-submit's)");
            }
        });
        MirrorConfig mirrorConfig;
        FlattenerConfig flattenerConfig;
        try {
            mirrorConfig = MirrorConfig.fromProperties(mirrorOptions);
            flattenerConfig = FlattenerConfig.fromProperties(container, flattenOptions);
        } catch (IllegalArgumentException e) {
            throw usage("--conf: " + e.getMessage());
        }
        if (!Files.isDirectory(mirror)) {
            throw usage("--mirror " + mirror + ": no such directory (the mirror's directory must exist; create it "
                    + "for a container's first mirror)");
        }
        StoreAddress address = storeAddress();
        requireMirroredContainer(address);
        long started = System.nanoTime();
        SparkBackfill.Result result;
        try (JavaSparkContext spark = new JavaSparkContext(new SparkConf()
                .setAppName("docmirror backfill of " + container))) {
            result = new SparkBackfill(spark, mirror, mirrorConfig, flattenerConfig, Clock.systemUTC())
                    .run(address, container, partsPerRange);
        }
        spec.commandLine().getOut().printf(Locale.ROOT, "Backfilled %,d documents of container %s in %.1f s (%d "
                        + "parts, the schema in %d rounds); the mirror is at %s and streams on from LSNs %s%n",
                result.documents(), container, (System.nanoTime() - started) / 1e9, result.parts(),
                result.schemaRounds(), result.position(), result.rangeLsns());
        spec.commandLine().getOut().flush();
        return CommandLine.ExitCode.OK;
    }

    /** The store's address and key: a variable {@code --store-key-env} names must be set. */
    private StoreAddress storeAddress() {
        String variable = storeKeyVariable();
        String key = environment.apply(variable);
        if (key == null && storeKeyVariable != null) {
            throw usage("--store-key-env " + variable + ": the environment variable is not set (it must hold the "
                    + "store's key)");
        }
        return new StoreAddress(store, key);
    }

    /**
     * Asks the store for the container before Spark starts, so that a store that cannot be reached or refuses the
     * key, or a container that does not exist or is not mirrored, fails at once.
     */
    private void requireMirroredContainer(StoreAddress address) {
        try (HttpStoreClient client = address.client()) {
            Backfill.requireMirrored(client.readContainer(container));
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.UNAUTHORIZED || e.code() == StoreErrorCode.FORBIDDEN) {
                String variable = storeKeyVariable();
                throw new StoreException(e.code(), "The store at " + address + " refused "
                        + (address.key() == null ? "a request without a key ($" + variable + " is not set)"
                        : "the key in $" + variable) + ": " + e.getMessage() + ". Set $" + variable + " to the "
                        + "store's key, or name the variable that holds it with --store-key-env", e);
            }
            throw e;
        }
    }

    /** The variable the store's key comes from. */
    private String storeKeyVariable() {
        return storeKeyVariable != null ? storeKeyVariable : DEFAULT_STORE_KEY_VARIABLE;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
