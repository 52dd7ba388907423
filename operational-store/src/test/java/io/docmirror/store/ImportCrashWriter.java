package io.docmirror.store;

import io.docmirror.store.bulk.IdAssignment;
import io.docmirror.store.bulk.JsonLinesImporter;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The child process of {@link ImportCrashTest}: imports a JSON Lines file with fsync on, in batches of
 * {@value #BATCH}, printing {@code ready}, then {@code durable <documents>} each time a batch is durable, until it is
 * killed. Usage: {@code ImportCrashWriter <data dir> <file>}.
 */
final class ImportCrashWriter {
    static final String CONTAINER = "imports";
    static final int BATCH = 200;

    private ImportCrashWriter() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true);
        try (EmbeddedStore store = EmbeddedStore.open(Path.of(args[0]), StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of(CONTAINER, "/pk"));
            out.println("ready");
            new JsonLinesImporter(store, new JsonLinesImporter.Options(CONTAINER, IdAssignment.AS_IS, false, true,
                    BATCH, JsonLinesImporter.Options.DEFAULT_BATCH_BYTES))
                    .importFile(Path.of(args[1]), OutputStream.nullOutputStream(),
                            (bytes, documents) -> out.println("durable " + documents));
        }
        out.println("done");
    }
}
