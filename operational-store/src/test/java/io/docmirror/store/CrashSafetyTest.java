package io.docmirror.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durability under SIGKILL: a child JVM ({@link CrashWriter}) writes as fast as it can; the test kills it at a random
 * moment, reopens the store, and checks that every acknowledged write is there, and that the change log and the
 * items agree exactly (no entry without its item, no item without its entry, LSNs without gaps). 20 kill points.
 */
@Tag("slow")
class CrashSafetyTest {
    private static final int TRIALS = 20;

    @TempDir
    Path dataDir;

    @Test
    void acknowledgedWritesSurviveSigkill() throws Exception {
        Random random = new Random(20261122);
        Map<String, Optional<Integer>> expected = new HashMap<>();
        for (int trial = 0; trial < TRIALS; trial++) {
            int killAfterAcks = 20 + random.nextInt(400);
            String[] inFlight = runAndKill(trial, killAfterAcks, expected);

            try (EmbeddedStore store = EmbeddedStore.open(dataDir, StoreConfig.defaults())) {
                assertAcknowledgedWritesPresent(store, expected, inFlight, trial);
                ChangeLogReplay.assertMatchesItems(store, "crash", "trial " + trial);
                // Adopt whatever the in-flight write left, so that the next trial starts from the store's truth.
                if (inFlight != null) {
                    // begin <op> <id> <pk> <v>
                    Optional<Item> item = store.findItem("crash", PartitionKey.of(inFlight[3]), inFlight[2]);
                    expected.put(inFlight[2], item.map(found -> found.tree().get("v").asInt()));
                }
            }
        }
    }

    /** Runs the writer until it acknowledged {@code acks} writes, SIGKILLs it, and returns the unacknowledged write. */
    private String[] runAndKill(int trial, int acks, Map<String, Optional<Integer>> expected) throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CrashWriter.class.getName(), dataDir.toString(),
                Integer.toString(trial))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String[] pending = null;
        int seen = 0;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("begin ")) {
                    pending = line.split(" ");
                }
                else if (line.equals("ack")) {
                    apply(expected, pending);
                    pending = null;
                    if (++seen == acks) {
                        ChildProcesses.sigkill(process);
                    }
                }
            }
        }
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).as("acks before the kill in trial %d", trial).isGreaterThanOrEqualTo(acks);
        return pending;
    }

    private static void apply(Map<String, Optional<Integer>> expected, String[] write) {
        // begin <op> <id> <pk> <v>
        expected.put(write[2], write[1].equals("D") ? Optional.empty() : Optional.of(Integer.parseInt(write[4])));
    }

    private static void assertAcknowledgedWritesPresent(EmbeddedStore store, Map<String, Optional<Integer>> expected,
            String[] inFlight, int trial) {
        Map<String, Integer> actual = new HashMap<>();
        for (Item item : StoreTesting.allItems(store, "crash")) {
            actual.put(item.id(), item.tree().get("v").asInt());
        }
        for (Map.Entry<String, Optional<Integer>> entry : expected.entrySet()) {
            String id = entry.getKey();
            if (inFlight != null && inFlight[2].equals(id)) {
                // The write in flight at the kill may or may not have landed; either outcome is correct.
                Optional<Integer> landed = inFlight[1].equals("D") ? Optional.empty() : Optional.of(Integer.parseInt(inFlight[4]));
                assertThat(Optional.ofNullable(actual.get(id))).as("trial %d, in-flight item %s", trial, id)
                        .isIn(entry.getValue(), landed);
                continue;
            }
            assertThat(Optional.ofNullable(actual.get(id))).as("trial %d, item %s", trial, id).isEqualTo(entry.getValue());
        }
        if (inFlight != null && !expected.containsKey(inFlight[2])) {
            // An unacknowledged create may have landed; nothing else may exist.
            actual.remove(inFlight[2]);
        }
        assertThat(actual.keySet()).as("trial %d: items nobody acknowledged", trial)
                .allMatch(id -> expected.containsKey(id));
    }
}
