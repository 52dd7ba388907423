package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Flatten throughput against Jackson parsing the same bytes into trees, in the same run: parsing is the floor of
 * any Java JSON pipeline, and the target is that flattening the bytes (which includes reading them) costs at most
 * 1.5 times parsing them alone. A second reference reads the same bytes as a token stream, every name and value
 * decoded but no tree built: the floor of the flattener, which walks tokens. Inputs are generated ~1 KB orders and
 * every real dataset. Then the steady-state allocation of flattening per document, measured as more and more
 * distinct documents go through one flattener: it must not grow.
 *
 * <p>Usage: {@code FlattenBenchmark [orders] [rounds] [datasetDir]}; {@code datasetDir} defaults to
 * {@code ../testdata}, the repository's datasets as seen from {@code bench/}, where the benchmark runs. Each input is
 * measured in a JVM of its own (see {@link #main}), which gets a fourth argument: the name of the one input to
 * measure.
 */
public final class FlattenBenchmark {
    private static final ObjectMapper MAPPER = StoreJson.mapper();
    private static final int ALLOCATION_WINDOW = 10_000;
    private static final long WARM_UP_DOCUMENTS = 200_000;
    private static final String ORDERS = "orders (generated)";

    private FlattenBenchmark() {
    }

    /**
     * @param parseNanos parsing every document into a tree
     * @param tokensNanos reading every document's tokens, names and values decoded, without building a tree
     * @param flattenNanos flattening every document from its bytes
     */
    public record Result(String input, int documents, long bytes, double parseNanos, double tokensNanos,
            double flattenNanos) {
        /** flatten / parse: 1.5 is the target. */
        public double ratio() {
            return flattenNanos / parseNanos;
        }
    }

    /** Bytes allocated per document by the flattener alone, after {@code documentsSeen} distinct documents. */
    public record Allocation(long documentsSeen, double bytesPerDocument) {
    }

    /**
     * Measures each input in a JVM of its own, started with this JVM's options: what the JIT makes of the flattener
     * depends on the documents it has seen, so inputs measured one after another in one JVM would change each
     * other's figures.
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path datasets = args.length > 2 ? Path.of(args[2]) : Path.of("..", "testdata");
        PrintStream out = System.out;
        if (args.length > 3) {
            // A child JVM: one input.
            String input = args[3];
            measure(input, input.equals(ORDERS) ? orders(orders) : storedDocuments(datasets.resolve(input)), rounds,
                    out);
            return;
        }
        printHeader(out);
        for (String input : inputs(datasets, out)) {
            measureInChildJvm(List.of(Integer.toString(orders), Integer.toString(rounds), datasets.toString(), input));
        }
        allocation(orders * 10L, out);
    }

    private static void measureInChildJvm(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), FlattenBenchmark.class.getName()));
        command.addAll(args);
        Process child = new ProcessBuilder(command).inheritIO().start();
        int exitCode = child.waitFor();
        if (exitCode != 0) {
            throw new IllegalStateException("Measuring " + args.get(3) + " failed: its JVM exited with " + exitCode);
        }
    }

    /** Measures every input in this JVM, one after another: quick, for smoke tests, but see {@link #main}. */
    public static List<Result> run(int orders, int rounds, Path datasets, PrintStream out) {
        List<Result> results = new ArrayList<>();
        printHeader(out);
        for (String input : inputs(datasets, out)) {
            List<byte[]> documents = input.equals(ORDERS) ? orders(orders) : storedDocuments(datasets.resolve(input));
            results.add(measure(input, documents, rounds, out));
        }
        return results;
    }

    private static void printHeader(PrintStream out) {
        out.printf(Locale.ROOT, "%-28s %9s %9s %12s %12s %12s %10s %10s %7s %7s%n", "input", "docs", "MB",
                "parse docs/s", "tokens docs/s", "flat docs/s", "parse MB/s", "flat MB/s", "ratio", "tokens");
    }

    /** The generated orders, then every dataset's file name. */
    private static List<String> inputs(Path datasets, PrintStream out) {
        List<String> inputs = new ArrayList<>(List.of(ORDERS));
        if (Files.isDirectory(datasets)) {
            for (Path file : jsonLinesFiles(datasets)) {
                inputs.add(file.getFileName().toString());
            }
        } else {
            out.println("(no datasets at " + datasets + ": only generated orders measured)");
        }
        return inputs;
    }

    private static List<byte[]> orders(int count) {
        OrderGenerator generator = new OrderGenerator(42, Math.max(1, count / 10));
        List<byte[]> documents = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            documents.add(generator.order(index));
        }
        return documents;
    }

    private static Result measure(String input, List<byte[]> documents, int rounds, PrintStream out) {
        long bytes = documents.stream().mapToLong(document -> document.length).sum();
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("bench"));
        // Warm-up, long enough for the JIT to finish with both paths whatever the dataset's size; the schema also
        // reaches its steady state (every path seen).
        for (long warmed = 0; warmed < WARM_UP_DOCUMENTS; warmed += documents.size()) {
            parseAll(documents);
            tokenizeAll(documents);
            flattenAll(flattener, documents);
        }
        double parseNanos = Double.MAX_VALUE;
        double tokensNanos = Double.MAX_VALUE;
        double flattenNanos = Double.MAX_VALUE;
        // Small datasets are timed over several passes per round, so that a round is long enough to measure.
        int passes = Math.max(1, 50_000 / documents.size());
        for (int round = 0; round < rounds; round++) {
            long parse = 0;
            long tokens = 0;
            long flatten = 0;
            for (int pass = 0; pass < passes; pass++) {
                parse += parseAll(documents);
                tokens += tokenizeAll(documents);
                flatten += flattenAll(flattener, documents);
            }
            parseNanos = Math.min(parseNanos, (double) parse / passes);
            tokensNanos = Math.min(tokensNanos, (double) tokens / passes);
            flattenNanos = Math.min(flattenNanos, (double) flatten / passes);
        }
        Result result = new Result(input, documents.size(), bytes, parseNanos, tokensNanos, flattenNanos);
        double seconds = 1e-9;
        out.printf(Locale.ROOT, "%-28s %,9d %9.1f %,12.0f %,12.0f %,12.0f %10.1f %10.1f %7.2f %7.2f%n", input,
                documents.size(), bytes / 1e6, documents.size() / (parseNanos * seconds),
                documents.size() / (tokensNanos * seconds), documents.size() / (flattenNanos * seconds),
                bytes / 1e6 / (parseNanos * seconds), bytes / 1e6 / (flattenNanos * seconds), result.ratio(),
                tokensNanos / parseNanos);
        return result;
    }

    /** Nanoseconds to parse every document into a tree. */
    private static long parseAll(List<byte[]> documents) {
        long start = System.nanoTime();
        long fields = 0;
        for (byte[] document : documents) {
            fields += readTree(document).size();
        }
        long elapsed = System.nanoTime() - start;
        consume(fields);
        return elapsed;
    }

    /**
     * Nanoseconds to read every document's tokens: names and strings decoded, integers as longs (or BigIntegers),
     * other numbers as exact decimals, as the store's mapper reads them into trees.
     */
    private static long tokenizeAll(List<byte[]> documents) {
        long start = System.nanoTime();
        long checksum = 0;
        for (byte[] document : documents) {
            try (JsonParser parser = MAPPER.createParser(document)) {
                for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                    checksum += switch (token) {
                        case FIELD_NAME -> parser.currentName().length();
                        case VALUE_STRING -> parser.getText().length();
                        case VALUE_NUMBER_INT -> parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                                ? parser.getBigIntegerValue().signum() : parser.getLongValue();
                        case VALUE_NUMBER_FLOAT -> parser.getDecimalValue().scale();
                        default -> 1;
                    };
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        long elapsed = System.nanoTime() - start;
        consume(checksum);
        return elapsed;
    }

    /** Nanoseconds to flatten every document from its bytes, as the mirror does. */
    private static long flattenAll(Flattener flattener, List<byte[]> documents) {
        long start = System.nanoTime();
        long rows = 0;
        long lsn = 0;
        for (byte[] document : documents) {
            rows += flattener.flatten(new SourceDocument("bench", "\"p\"", ++lsn, document)).rows().size();
        }
        long elapsed = System.nanoTime() - start;
        consume(rows);
        return elapsed;
    }

    /**
     * Flattens {@code documents} distinct orders through one flattener and prints the bytes it allocates per
     * document (reading its bytes included) at growing counts of documents seen.
     */
    public static List<Allocation> allocation(long documents, PrintStream out) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        OrderGenerator generator = new OrderGenerator(7, 100_000);
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        List<Allocation> allocations = new ArrayList<>();
        long nextReport = ALLOCATION_WINDOW;
        List<byte[]> window = new ArrayList<>(ALLOCATION_WINDOW);
        for (long seen = 0; seen < documents; seen += ALLOCATION_WINDOW) {
            window.clear();
            for (int index = 0; index < ALLOCATION_WINDOW; index++) {
                window.add(generator.order(seen + index));
            }
            long before = threads.getThreadAllocatedBytes(thread);
            long rows = 0;
            for (int index = 0; index < window.size(); index++) {
                FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", seen + index + 1,
                        window.get(index)));
                rows += result.rows().size();
            }
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            consume(rows);
            if (seen + ALLOCATION_WINDOW >= nextReport) {
                Allocation allocation = new Allocation(seen + ALLOCATION_WINDOW,
                        (double) allocated / ALLOCATION_WINDOW);
                allocations.add(allocation);
                out.printf(Locale.ROOT, "flattener allocation after %,11d documents: %,8.0f bytes/document%n",
                        allocation.documentsSeen(), allocation.bytesPerDocument());
                nextReport *= 10;
            }
        }
        return allocations;
    }

    private static List<Path> jsonLinesFiles(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The dataset's documents as the store would hold them: with a string id (made up when missing). */
    private static List<byte[]> storedDocuments(Path file) {
        try {
            List<byte[]> documents = new ArrayList<>();
            int line = 0;
            for (String text : Files.readAllLines(file)) {
                line++;
                ObjectNode document = readTree(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                if (!document.path("id").isTextual()) {
                    document.put("id", "line-" + line);
                }
                documents.add(MAPPER.writeValueAsBytes(document));
            }
            return documents;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode readTree(byte[] document) {
        try {
            JsonNode node = MAPPER.readTree(document);
            return (ObjectNode) node;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Keeps the JIT from removing work whose result is otherwise unused. */
    private static void consume(long value) {
        if (value == Long.MIN_VALUE) {
            System.out.print("");
        }
    }
}
