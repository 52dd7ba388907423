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
 * Durability of group commit under SIGKILL: a child JVM ({@link ConcurrentCrashWriter}) has 16 threads upserting
 * with fsync on; once the store reports writes sharing an fsync, the test kills it after a random number of
 * acknowledged writes, reopens the store, and checks that every acknowledged write is there (each id's value is at
 * least the last one acknowledged: a write in flight may have landed too) and that the change log and the items
 * agree with no LSN gap. 5 kill points.
 */
@Tag("slow")
class GroupCommitCrashTest {
    private static final int TRIALS = 5;

    @TempDir
    Path dataDir;

    @Test
    void everyAcknowledgedWriteOfAGroupSurvivesSigkill() throws Exception {
        Random random = new Random(20261201);
        Map<String, Acknowledged> expected = new HashMap<>();
        for (int trial = 0; trial < TRIALS; trial++) {
            int killAfterAcks = 50 + random.nextInt(500);
            runAndKill(trial, killAfterAcks, expected);

            try (EmbeddedStore store = EmbeddedStore.open(dataDir, StoreConfig.defaults())) {
                for (Map.Entry<String, Acknowledged> entry : expected.entrySet()) {
                    Acknowledged acknowledged = entry.getValue();
                    Optional<Item> item = store.findItem("crash", PartitionKey.of(acknowledged.pk()), entry.getKey());
                    assertThat(item).as("trial %d: acknowledged item %s", trial, entry.getKey()).isPresent();
                    assertThat(item.get().tree().get("v").asInt()).as("trial %d: item %s", trial, entry.getKey())
                            .isGreaterThanOrEqualTo(acknowledged.v());
                }
                ChangeLogReplay.assertMatchesItems(store, "crash", "trial " + trial);
            }
        }
    }

    private record Acknowledged(String pk, int v) {
    }

    /** Runs the writer until it shows grouping and {@code acks} acknowledgements, SIGKILLs it, reads what it said. */
    private void runAndKill(int trial, int acks, Map<String, Acknowledged> expected) throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ConcurrentCrashWriter.class.getName(),
                dataDir.toString(), "t" + trial)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        int seen = 0;
        boolean grouped = false;
        boolean killed = false;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.equals("grouped")) {
                    grouped = true;
                }
                else if (line.startsWith("ack ")) {
                    // ack <id> <pk> <v>; each id is written by one thread, so its values only grow.
                    String[] ack = line.split(" ");
                    expected.put(ack[1], new Acknowledged(ack[2], Integer.parseInt(ack[3])));
                    seen++;
                }
                if (!killed && grouped && seen >= acks) {
                    ChildProcesses.sigkill(process);
                    killed = true;
                }
            }
        }
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(killed).as("trial %d: killed after %d acks (grouped: %s)", trial, seen, grouped).isTrue();
    }
}
