package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One commit writes the deletion vectors of several data files into one Puffin file; a later commit replaces the
 * vector of one of them. Expiring the snapshot that dropped that vector must not delete the Puffin file the other
 * vectors still point into (Iceberg 1.12 did, and every read of the table then failed).
 */
class SharedDeletionVectorFileTest {
    @TempDir
    Path work;

    @Test
    void expiringSnapshotsKeepsPuffinFilesThatLiveVectorsPointInto() throws IOException {
        // Every snapshot but the newest expires at once; compaction would merge the files away.
        MirrorConfig config = MirrorConfig.fromProperties(Map.of("mirror.snapshots.keep", "1",
                "mirror.snapshots.keep-ms", "0", "mirror.compaction.files", "0"));
        Path mirror = work.resolve("mirror");
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults()
                .withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
            Map<String, Integer> expected = new TreeMap<>();
            for (int file = 0; file < 2; file++) { // two data files of four orders each
                for (int order = 1; order <= 4; order++) {
                    write(store, expected, "o" + (file * 4 + order), 0);
                }
                sync(store, mirror, config);
            }
            write(store, expected, "o1", 1); // a vector for each data file, in one Puffin file
            write(store, expected, "o5", 1);
            sync(store, mirror, config);
            write(store, expected, "o2", 1); // the first file's vector replaced; the second's stays where it was
            sync(store, mirror, config);
            write(store, expected, "o9", 1); // the snapshot that replaced it expires
            sync(store, mirror, config);

            Table orders = CatalogPointers.read(mirror).tables(MirrorTables.namespace("orders")).get("orders");
            List<String> missing = missingVectorFiles(orders);
            assertThat(missing).as("Puffin files that live deletion vectors point into").isEmpty();
            Map<String, Integer> mirrored = new TreeMap<>();
            for (List<Object> row : IcebergRows.read(orders, "id", "v")) {
                mirrored.put((String) row.get(0), ((Number) row.get(1)).intValue());
            }
            assertThat(mirrored).isEqualTo(expected);
        }
    }

    private static void write(EmbeddedStore store, Map<String, Integer> expected, String id, int version) {
        store.upsertItem("orders", "{\"id\":\"" + id + "\",\"customerId\":\"c\",\"v\":" + version + "}");
        expected.put(id, version);
    }

    private static void sync(EmbeddedStore store, Path mirror, MirrorConfig config) {
        try (FeedMirror feedMirror = new FeedMirror(store, mirror, config, FlattenerConfig::defaults,
                Clock.systemUTC())) {
            feedMirror.sync();
        }
    }

    private static List<String> missingVectorFiles(Table table) throws IOException {
        List<String> missing = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                for (DeleteFile vector : task.deletes()) {
                    if (!Files.exists(LocalFileIO.pathOf(vector.location()))) {
                        missing.add(vector.location() + " (the vector of " + task.file().location() + ")");
                    }
                }
            }
        }
        System.out.println("deletion vector files missing: " + missing);
        return missing;
    }
}
