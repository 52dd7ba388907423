package io.docmirror.store;

import com.fasterxml.jackson.databind.node.IntNode;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The child process of {@link CrashSafetyTest}: writes to the store as fast as it can, forever, and prints
 * {@code begin <op> <id> <pk> <v>} before each write and {@code ack} once the store acknowledged it.
 * Ops: C create, U upsert, P patch (sets v), D delete.
 */
public final class CrashWriter {
    private CrashWriter() {
    }

    public static void main(String[] args) {
        Path dataDir = Path.of(args[0]);
        int trial = Integer.parseInt(args[1]);
        Random random = new Random(trial);
        PrintStream out = new PrintStream(System.out, false);
        try (EmbeddedStore store = EmbeddedStore.open(dataDir, StoreConfig.defaults())) {
            if (store.listContainers().isEmpty()) {
                store.createContainer(ContainerProperties.of("crash", "/pk"));
            }
            List<String[]> live = new ArrayList<>();
            for (int n = 0; ; n++) {
                int v = n;
                int choice = random.nextInt(10);
                if (live.isEmpty() || choice < 5) {
                    String id = "t" + trial + "-" + n;
                    String pk = "p" + random.nextInt(20);
                    announce(out, "C", id, pk, v);
                    store.createItem("crash", "{\"id\":\"" + id + "\",\"pk\":\"" + pk + "\",\"v\":" + v + "}");
                    live.add(new String[] {id, pk});
                }
                else if (choice < 7) {
                    String[] item = live.get(random.nextInt(live.size()));
                    announce(out, "U", item[0], item[1], v);
                    store.upsertItem("crash", "{\"id\":\"" + item[0] + "\",\"pk\":\"" + item[1] + "\",\"v\":" + v + "}");
                }
                else if (choice < 8) {
                    String[] item = live.get(random.nextInt(live.size()));
                    announce(out, "P", item[0], item[1], v);
                    store.patchItem("crash", PartitionKey.of(item[1]), item[0],
                            List.of(PatchOperation.set("/v", IntNode.valueOf(v))));
                }
                else {
                    String[] item = live.remove(random.nextInt(live.size()));
                    announce(out, "D", item[0], item[1], v);
                    store.deleteItem("crash", PartitionKey.of(item[1]), item[0]);
                }
                out.println("ack");
                out.flush();
            }
        }
    }

    private static void announce(PrintStream out, String op, String id, String pk, int v) {
        out.println("begin " + op + " " + id + " " + pk + " " + v);
        out.flush();
    }
}
