package io.docmirror.mirror;

import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * The child process of {@link MirrorCrashTest}: writes creates, replaces, patches and deletes into the store on one thread
 * while the mirror daemon commits small batches on another, until it is killed. The store's reaper runs as in
 * production, so orders written with a TTL expire and leave the change log as TTL deletes meanwhile.
 * Arguments: data directory, random seed.
 */
public final class MirrorCrashWorker {
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        Random random = new Random(Long.parseLong(args[1]));
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false));
             FeedMirror mirror = new FeedMirror(store, MirrorLayout.mirrorDirectory(data),
                     MirrorConfig.defaults().withBatch(40, Duration.ofMillis(20)),
                     FlattenerConfig::defaults,
                     Clock.systemUTC())) {
            Thread writer = new Thread(() -> writeForever(store, random), "writer");
            writer.setDaemon(true);
            writer.start();
            System.out.println("running");
            System.out.flush();
            mirror.run();
        }
    }

    private static void writeForever(EmbeddedStore store, Random random) {
        while (true) {
            writeOne(store, random);
        }
    }

    /**
     * One random create, replace, patch or delete of an order among 300, or, one time in ten, an upsert of a
     * short-lived order among 2,000 with a TTL of one second (honoured when the container has TTL on). Short-lived
     * orders are seldom written twice, so most expire and are reaped; they are never patched or deleted, so that no
     * write races an expiry.
     */
    static void writeOne(StoreClient store, Random random) {
        if (random.nextInt(10) == 0) {
            int order = random.nextInt(2000);
            store.upsertItem("orders", "{\"id\":\"t" + order + "\",\"customerId\":\"c" + order % 17
                    + "\",\"amount\":" + random.nextInt(1000) + ",\"ttl\":1,\"items\":[]}");
            return;
        }
        int order = random.nextInt(300);
        String customer = "c" + order % 17;
        boolean exists = store.findItem("orders", PartitionKey.of(customer), "o" + order).isPresent();
        int choice = random.nextInt(10);
        if (exists && choice == 0) {
            store.deleteItem("orders", PartitionKey.of(customer), "o" + order);
            return;
        }
        if (exists && choice == 1) {
            store.patchItem("orders", PartitionKey.of(customer), "o" + order,
                    List.of(PatchOperation.set("/status", TextNode.valueOf("shipped " + random.nextInt(9)))));
            return;
        }
        StringBuilder items = new StringBuilder();
        for (int item = 0, count = random.nextInt(4); item < count; item++) {
            items.append(item == 0 ? "" : ",").append("{\"sku\":\"s").append(random.nextInt(50))
                    .append("\",\"qty\":").append(1 + random.nextInt(5)).append('}');
        }
        // A field that changes type now and then grows the schema mid-batch.
        String amount = random.nextInt(20) == 0 ? "\"n/a\"" : Integer.toString(random.nextInt(1000));
        store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"" + customer + "\",\"amount\":"
                + amount + ",\"f" + random.nextInt(30) + "\":true,\"items\":[" + items + "]}");
    }
}
