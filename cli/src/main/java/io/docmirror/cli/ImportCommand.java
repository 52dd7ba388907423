package io.docmirror.cli;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.bulk.IdAssignment;
import io.docmirror.store.bulk.JsonLinesImporter;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Bulk-load a JSON Lines file into a container, in large atomic batches.",
                "Creates the container when it is missing (mirrored, analytical TTL -1). Bad lines go to the rejects "
                        + "file with their line number and reason; the good lines still load. Exit code 3 when any "
                        + "line was rejected."})
final class ImportCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Option(names = "--container", required = true, paramLabel = "NAME", description = "The target container.")
    String container;

    @Option(names = "--pk", paramLabel = "/path", description = "Partition key path, to create a missing container.")
    Optional<String> partitionKeyPath = Optional.empty();

    @ArgGroup(exclusive = true)
    IdSource idSource;

    static final class IdSource {
        @Option(names = "--id", paramLabel = "/path",
                description = "Take each document's id from this property (string as is, number as text, "
                        + "{\"$oid\": ...} as its hex).")
        String path;

        @Option(names = "--generate-ids", description = "Give documents without an id a generated one "
                + "(stable: a UUID of the line number and content, so a re-import conflicts rather than duplicates).")
        boolean generate;
    }

    @Option(names = "--upsert", description = "Replace existing items instead of rejecting the line (409).")
    boolean upsert;

    @Option(names = "--fail-fast", description = "Stop at the first bad line; only the lines before it are stored.")
    boolean failFast;

    @Option(names = "--rejects", paramLabel = "FILE",
            description = "Where rejected lines go (default: FILE.rejects.jsonl beside FILE).")
    Optional<Path> rejectsFile = Optional.empty();

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "5000",
            description = "Documents per atomic write (default ${DEFAULT-VALUE}).")
    int batchSize;

    @Parameters(index = "0", paramLabel = "FILE.jsonl", description = "One JSON document per line.")
    Path file;

    @Override
    public Integer call() throws IOException {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("Cannot import " + file + ": no such readable file");
        }
        Path rejects = rejectsFile.orElse(file.resolveSibling(file.getFileName() + ".rejects.jsonl"));
        Files.deleteIfExists(rejects);
        IdAssignment ids = idSource == null ? IdAssignment.AS_IS
                : idSource.generate ? IdAssignment.generated() : IdAssignment.fromPath(idSource.path);
        JsonLinesImporter.Summary summary;
        try (EmbeddedStore store = dataDir.openStore();
                LazyFileOutputStream rejectsOut = new LazyFileOutputStream(rejects)) {
            ensureContainer(store);
            JsonLinesImporter importer = new JsonLinesImporter(store, new JsonLinesImporter.Options(container, ids, upsert,
                    failFast, batchSize, JsonLinesImporter.Options.DEFAULT_BATCH_BYTES));
            try (ProgressBar bar = ConsoleProgress.bar("Importing", Files.size(file))
                    .setUnit(Files.size(file) >= 10_000_000 ? " MB" : " kB", Files.size(file) >= 10_000_000 ? 1_000_000 : 1_000)
                    .build()) {
                summary = importer.importFile(file, rejectsOut, (bytes, documents) -> {
                    bar.stepTo(bytes);
                    bar.setExtraMessage(" " + documents + " docs");
                });
            }
        }
        System.out.printf(Locale.ROOT, "Imported %d documents from %s into container %s in %.1f s (%.0f docs/s, %.1f MB/s)%n",
                summary.loaded(), file, container, summary.elapsed().toNanos() / 1e9, summary.documentsPerSecond(),
                summary.megabytesPerSecond());
        if (summary.rejected() == 0) {
            return ExitCodes.OK;
        }
        System.out.printf(Locale.ROOT, "Rejected %d line%s (all in %s)%s:%n", summary.rejected(),
                summary.rejected() == 1 ? "" : "s", rejects, summary.stoppedEarly() ? "; stopped at the first (--fail-fast)" : "");
        summary.firstRejections().forEach(rejection -> System.out.println("  " + rejection.reason()));
        if (summary.rejected() > summary.firstRejections().size()) {
            System.out.println("  ...");
        }
        return ExitCodes.SOME_REJECTED;
    }

    private void ensureContainer(EmbeddedStore store) {
        try {
            ContainerProperties existing = store.readContainer(container);
            partitionKeyPath.filter(path -> !path.equals(existing.partitionKeyPath())).ifPresent(path -> {
                throw new IllegalArgumentException("Cannot import into container " + container + ": its partition key is "
                        + existing.partitionKeyPath() + ", not " + path);
            });
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.NOT_FOUND) {
                throw e;
            }
            String path = partitionKeyPath.orElseThrow(() -> new IllegalArgumentException("Container " + container
                    + " does not exist; give --pk /path to create it"));
            store.createContainer(ContainerProperties.of(container, path).withAnalyticalTtl(-1));
            System.err.println("Created container " + container + " (partition key " + path + ", analytical TTL -1)");
        }
    }

    /** A file that is created only when something is written to it, so a clean import leaves no rejects file. */
    private static final class LazyFileOutputStream extends OutputStream {
        private final Path path;
        private OutputStream out;

        LazyFileOutputStream(Path path) {
            this.path = path;
        }

        @Override
        public void write(int b) throws IOException {
            open().write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            open().write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            if (out != null) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            if (out != null) {
                out.close();
            }
        }

        private OutputStream open() throws IOException {
            if (out == null) {
                out = Files.newOutputStream(path);
            }
            return out;
        }
    }
}
