package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durability of the pipelined import under SIGKILL: a child JVM ({@link ImportCrashWriter}) imports a file with
 * fsync on while it reads and checks the batches after the one being written; the test kills it after a random
 * number of durable batches, reopens the store, and checks that it holds exactly the file's first lines, a whole
 * number of batches and at least those reported durable, with a change log that follows the file. 4 kill points.
 */
@Tag("slow")
class ImportCrashTest {
    private static final int TRIALS = 4;
    private static final int LINES = 100_000;

    @TempDir
    Path work;

    @Test
    void aKilledImportLeavesAPrefixOfTheFileAndAMatchingChangeLog() throws Exception {
        Path file = work.resolve("input.jsonl");
        try (BufferedWriter writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int line = 1; line <= LINES; line++) {
                writer.write("{\"id\":\"" + id(line) + "\",\"pk\":\"p" + line % 13 + "\",\"amount\":" + line + ".50}\n");
            }
        }
        Random random = new Random(20261124);
        for (int trial = 0; trial < TRIALS; trial++) {
            Path dataDir = work.resolve("store-" + trial);
            long reported = runAndKill(dataDir, file, 3 + random.nextInt(40));

            try (EmbeddedStore store = EmbeddedStore.open(dataDir, StoreConfig.defaults())) {
                List<String> ids = StoreTesting.allItems(store, ImportCrashWriter.CONTAINER).stream().map(Item::id)
                        .sorted().toList();
                String when = "trial " + trial + " (" + reported + " reported durable, " + ids.size() + " stored)";
                assertThat(ids.size()).as(when).isGreaterThanOrEqualTo((int) reported);
                assertThat(ids.size() % ImportCrashWriter.BATCH).as(when + ": whole batches").isZero();
                assertThat(ids).as(when + ": the file's first lines").containsExactlyElementsOf(
                        IntStream.rangeClosed(1, ids.size()).mapToObj(ImportCrashTest::id).toList());
                ChangeLogReplay.assertMatchesItems(store, ImportCrashWriter.CONTAINER, when);
                for (int partition = 0; partition < store.readContainer(ImportCrashWriter.CONTAINER).logPartitions();
                        partition++) {
                    List<ChangeEvent> events = store.readChangeLog(ImportCrashWriter.CONTAINER, partition, 0,
                            Integer.MAX_VALUE).events();
                    assertThat(events).as(when + ": partition " + partition + " in file order")
                            .isSortedAccordingTo(Comparator.comparing(ChangeEvent::id));
                }
            }
        }
    }

    /** Runs the import until it has reported {@code batches} durable batches, SIGKILLs it; returns the last count. */
    private static long runAndKill(Path dataDir, Path file, int batches) throws Exception {
        Process process = ChildProcesses.startJava(ImportCrashWriter.class.getName(), "ready", dataDir.toString(),
                file.toString());
        long reported = 0;
        int seen = 0;
        boolean killed = false;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("durable ")) {
                    reported = Long.parseLong(line.substring("durable ".length()));
                    seen++;
                }
                if (!killed && seen >= batches) {
                    ChildProcesses.sigkill(process);
                    killed = true;
                }
            }
        }
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(killed).as("killed after %d durable batches (the import had not finished)", batches).isTrue();
        return reported;
    }

    private static String id(int line) {
        return String.format("d%06d", line);
    }
}
