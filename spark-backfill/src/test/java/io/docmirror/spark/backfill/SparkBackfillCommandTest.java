package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.SameTables;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.server.StoreHttpServer;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spark backfill's command refuses bad input before Spark starts: each refusal is an exit status (2 for a usage
 * error, 1 for a store that refuses) and one message naming the option, the value and the rule, never a bare stack
 * trace, and the mirror's directory (a real mirror of the container, its catalog included) is left exactly as it was.
 * No Spark context is started in this JVM: a case that got past the checks would fail to start one (no master is
 * set). One valid command line runs the backfill through {@code main}, in a JVM of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkBackfillCommandTest {
    private static final String CONTAINER = "docs";
    private static final String UNMIRRORED = "plain";
    private static final String PRIMARY_KEY = "spark-backfill-command-test-primary-key-0123456789";

    /** The store's and the mirror's directory, one for the class. */
    private Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private StoreHttpServer server;
    private StoreHttpServer serverWithKey;
    private Path mirror;
    private SortedMap<String, String> mirrorBefore;

    @BeforeAll
    void serveStoreAndMirrorIt(@TempDir Path directory) throws Exception {
        work = directory;
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of(CONTAINER, "/pk").withAnalyticalTtl(-1).withLogPartitions(2));
        store.createContainer(ContainerProperties.of(UNMIRRORED, "/pk"));
        for (int document = 0; document < 20; document++) {
            store.upsertItem(CONTAINER, "{\"id\":\"d" + document + "\",\"pk\":\"p" + document % 3 + "\",\"n\":"
                    + document + "}");
        }
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        serverWithKey = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0)
                .withKeys(PRIMARY_KEY, null));
        mirror = work.resolve("mirror");
        new Backfill(store, mirror, MirrorConfig.defaults(), FlattenerConfig.defaults(CONTAINER), clock)
                .run(CONTAINER, Backfill.Listener.NONE);
        mirrorBefore = contents(mirror);
        assertThat(mirrorBefore).as("the mirror's files").isNotEmpty().containsKey("catalog.db");
    }

    @AfterEach
    void theMirrorIsAsItWas() {
        assertThat(contents(mirror)).as("the mirror's files and their contents").isEqualTo(mirrorBefore);
    }

    @AfterAll
    void stopStore() {
        serverWithKey.close();
        server.close();
        store.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"store.http.port=1", "spark.hadoop.fs.s3a.secret.key=never-printed"})
    void aConfOutsideTheMirrorAndFlattenOptionsIsRefusedWithoutItsValue(String option) {
        String key = option.substring(0, option.indexOf('='));

        Refusal refusal = run(Map.of(), "--conf", option);

        refusal.assertUsageError().contains("--conf " + key + ": ", "mirror.* and flatten.* options only")
                .doesNotContain(option);
        assertThat(refusal.err()).doesNotContain("never-printed");
    }

    @Test
    void aConfWithoutAnEqualsSignIsRefused() {
        Refusal refusal = run(Map.of(), "--conf", "mirror.parquet.file-rows");

        refusal.assertUsageError().contains("'--conf'", "KEY=VALUE", "mirror.parquet.file-rows");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mirror.nonsense", "flatten.nonsense"})
    void anUnknownKeyOfAKnownPrefixIsRefusedNamingTheNearestKey(String key) {
        Refusal refusal = run(Map.of(), "--conf", key + "=1");

        refusal.assertUsageError().contains("--conf", "Unknown configuration " + key, "did you mean");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mirror.parquet.file-rows=-5", "mirror.parquet.file-rows=many",
            "flatten.column-limit=0"})
    void anInvalidValueOfAKnownKeyIsRefusedNamingTheRule(String option) {
        String key = option.substring(0, option.indexOf('='));
        String value = option.substring(option.indexOf('=') + 1);

        Refusal refusal = run(Map.of(), "--conf", option);

        refusal.assertUsageError().contains("--conf", "Invalid value " + value + " for configuration " + key + ": ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-3", "1025", "2147483647"})
    void partsPerRangeOutsideOneToTheStoresMostIsRefused(String parts) {
        Refusal refusal = run(Map.of(), "--parts-per-range", parts);

        refusal.assertUsageError().contains("Invalid value " + parts + " for option '--parts-per-range'",
                "1 to " + SparkBackfillCommand.MAX_PARTS_PER_RANGE + " parts");
    }

    @Test
    void partsPerRangeBeyondAnIntIsRefused() {
        Refusal refusal = run(Map.of(), "--parts-per-range", "99999999999");

        refusal.assertUsageError().contains("'--parts-per-range'", "99999999999", "not an int");
    }

    @Test
    void theBoundsOfPartsPerRangeAreAccepted() {
        for (String parts : List.of("1", String.valueOf(SparkBackfillCommand.MAX_PARTS_PER_RANGE))) {
            SparkBackfillCommand command = new SparkBackfillCommand(Map.<String, String>of()::get);
            SparkBackfillCommand.commandLine(command).parseArgs(arguments(server.baseUri().toString(), CONTAINER,
                    "--parts-per-range", parts).toArray(String[]::new));
        }
    }

    @Test
    void aContainerThatIsNotMirroredIsRefused() {
        Refusal refusal = runAgainst(server.baseUri().toString(), UNMIRRORED, Map.of());

        refusal.assertFailure().contains("Cannot backfill container " + UNMIRRORED, "not mirrored");
    }

    @Test
    void aContainerTheStoreDoesNotHaveIsRefused() {
        Refusal refusal = runAgainst(server.baseUri().toString(), "missing", Map.of());

        refusal.assertFailure().contains("Container missing does not exist");
    }

    @ParameterizedTest
    @ValueSource(strings = {"not a url", "127.0.0.1:8081", "ftp://127.0.0.1:8081", "http://", "file:///tmp/store"})
    void aStoreUrlThatIsNotAnHttpUrlIsRefused(String url) {
        Refusal refusal = runAgainst(url, CONTAINER, Map.of());

        refusal.assertUsageError().contains("Invalid value '" + url + "' for option '--store': ",
                "http://HOST:PORT or https://HOST:PORT");
    }

    @Test
    void aMirrorDirectoryThatDoesNotExistIsRefusedAndNotCreated() {
        Path absent = work.resolve("no-such-mirror");
        List<String> arguments = arguments(server.baseUri().toString(), CONTAINER);
        arguments.set(arguments.indexOf("--mirror") + 1, absent.toString());

        Refusal refusal = run(Map.of(), arguments);

        refusal.assertUsageError().contains("--mirror " + absent, "no such directory");
        assertThat(absent).doesNotExist();
    }

    @Test
    void aStoreThatCannotBeReachedIsOneLine() throws IOException {
        int freePort;
        try (ServerSocket socket = new ServerSocket(0)) {
            freePort = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + freePort;

        Refusal refusal = runAgainst(url, CONTAINER, Map.of());

        refusal.assertFailure().contains("Cannot reach the store at " + url, "the connection was refused");
    }

    @Test
    void aStoreThatNeedsAKeyWhileTheVariableIsUnsetNamesTheVariable() {
        Refusal refusal = runAgainst(serverWithKey.baseUri().toString(), CONTAINER, Map.of());

        refusal.assertFailure().contains("refused a request without a key",
                "$" + SparkBackfillCommand.DEFAULT_STORE_KEY_VARIABLE + " is not set", "--store-key-env");
    }

    @Test
    void aWrongKeyNamesTheVariableItCameFromAndNeverTheKey() {
        Refusal refusal = runAgainst(serverWithKey.baseUri().toString(), CONTAINER,
                Map.of(SparkBackfillCommand.DEFAULT_STORE_KEY_VARIABLE, "wrong-key-0123456789"));

        refusal.assertFailure().contains("refused the key in $" + SparkBackfillCommand.DEFAULT_STORE_KEY_VARIABLE)
                .doesNotContain("wrong-key-0123456789");
    }

    @Test
    void aStoreKeyVariableNamedButUnsetIsRefused() {
        Refusal refusal = run(Map.of(SparkBackfillCommand.DEFAULT_STORE_KEY_VARIABLE, PRIMARY_KEY),
                "--store-key-env", "SPARK_BACKFILL_TEST_UNSET_KEY");

        refusal.assertUsageError().contains("--store-key-env SPARK_BACKFILL_TEST_UNSET_KEY", "not set");
    }

    /**
     * What the refusals are checked against: the same command line, into a directory of its own, backfills the
     * container through {@code main} (in a JVM of its own, as main exits it) and makes the single-machine tables.
     */
    @Test
    void aValidCommandLineBackfillsThroughMain() throws Exception {
        Path onSpark = Files.createDirectory(work.resolve("spark-mirror"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx1g", "-Dspark.master=local[2]", "-Dspark.ui.enabled=false"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith("--add-opens") || argument.startsWith("-Djdk.reflect"))
                .toList());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SparkBackfillCommand.class.getName(),
                "--store", server.baseUri().toString(), "--container", CONTAINER, "--mirror", onSpark.toString(),
                "--parts-per-range", "3",
                "--conf", "mirror.parquet.file-rows=7", "--conf", "flatten.column-limit=1000"));
        Path output = work.resolve("main.log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().remove(SparkBackfillCommand.DEFAULT_STORE_KEY_VARIABLE);
        Process main = builder.start();
        boolean exited = main.waitFor(3, TimeUnit.MINUTES);
        if (!exited) {
            main.destroyForcibly().waitFor();
        }
        String log = Files.readString(output);
        assertThat(exited).as("main exited within 3 minutes; its output: %s", log).isTrue();
        assertThat(main.exitValue()).as("main's exit status; its output: %s", log).isZero();
        assertThat(log).contains("Backfilled 20 documents of container " + CONTAINER);
        SameTables.assertSame(onSpark, mirror, CONTAINER);
    }

    /** Runs the command against the store without a key, with the valid arguments and {@code more}. */
    private Refusal run(Map<String, String> environment, String... more) {
        return run(environment, arguments(server.baseUri().toString(), CONTAINER, more));
    }

    private Refusal runAgainst(String store, String container, Map<String, String> environment) {
        return run(environment, arguments(store, container));
    }

    private List<String> arguments(String store, String container, String... more) {
        List<String> arguments = new ArrayList<>(List.of("--store", store, "--container", container, "--mirror",
                mirror.toString()));
        arguments.addAll(List.of(more));
        return arguments;
    }

    /** Runs the real command line, as {@code main} does, with {@code environment} as the process's environment. */
    private static Refusal run(Map<String, String> environment, List<String> arguments) {
        CommandLine commandLine = SparkBackfillCommand.commandLine(new SparkBackfillCommand(environment::get));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(arguments.toArray(String[]::new));
        System.out.println(String.join(" ", arguments) + "\n  exit " + exit + ", stderr: " + err);
        assertThat(out.toString()).as("stdout").isEmpty();
        return new Refusal(String.join(" ", arguments), exit, err.toString());
    }

    /** What a refused run exited with and printed on stderr. */
    private record Refusal(String arguments, int exit, String err) {
        /** Refused as a usage error: the message first, then the usage. */
        AbstractStringAssert<?> assertUsageError() {
            assertThat(exit).as("exit status of %s; stderr: %s", arguments, err).isEqualTo(CommandLine.ExitCode.USAGE);
            return assertMessage();
        }

        /** Refused by the store or the mirror: one line. */
        AbstractStringAssert<?> assertFailure() {
            assertThat(exit).as("exit status of %s; stderr: %s", arguments, err)
                    .isEqualTo(CommandLine.ExitCode.SOFTWARE);
            assertThat(err.strip().lines()).as("stderr of %s", arguments).hasSize(1);
            return assertMessage();
        }

        private AbstractStringAssert<?> assertMessage() {
            assertThat(err).as("stderr of %s", arguments).doesNotContain("\tat ", "Exception");
            return assertThat(err.lines().findFirst().orElse("")).as("the first line of stderr of %s", arguments);
        }
    }

    /** Every file under {@code directory} by relative path, with a hash of its bytes. */
    private static SortedMap<String, String> contents(Path directory) {
        SortedMap<String, String> contents = new TreeMap<>();
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = directory.relativize(file).toString();
                contents.put(name, Files.isDirectory(file) ? "directory" : sha256(Files.readAllBytes(file)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return contents;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
