package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.store.ChildProcesses;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A process committing batches across three tables is killed with SIGKILL at random moments, over and over (inside
 * file writes, metadata writes and the catalog's SQL transaction alike): every time, all three tables hold the same
 * batches, never some tables a batch further than others, and no acknowledged batch is lost.
 */
@Tag("slow")
class CatalogBatchCrashTest {
    private static final int KILLS = 12;

    @TempDir
    Path directory;

    @Test
    void aKilledBatchIsInAllTablesOrInNone() throws Exception {
        long seed = Long.getLong("docmirror.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        System.out.println("seed " + seed);
        long acknowledged = 0;
        for (int kill = 0; kill < KILLS; kill++) {
            Process writer = ChildProcesses.startJava(CatalogBatchWriter.class.getName(), "ready",
                    directory.toString());
            BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(),
                    StandardCharsets.UTF_8));
            int batches = 1 + random.nextInt(4);
            for (int line = 0; line < batches; line++) {
                String committed = out.readLine();
                assertThat(committed).as("what the writer printed (it stopped?)").startsWith("committed ");
                acknowledged = Long.parseLong(committed.substring("committed ".length()));
            }
            // Somewhere inside the next batches: the kill must not need to know where.
            Thread.sleep(random.nextInt(60));
            ChildProcesses.sigkill(writer);
            String line;
            while ((line = out.readLine()) != null) {
                acknowledged = Long.parseLong(line.substring("committed ".length()));
            }

            List<List<Long>> rows = new ArrayList<>();
            try (CatalogConnection connection = MirrorCatalog.open(CatalogSettings.embedded(directory))) {
                Catalog catalog = connection.catalog();
                long committed = CatalogBatchWriter.committedBatch(catalog);
                System.out.println("kill " + kill + ": acknowledged " + acknowledged + ", committed " + committed);
                assertThat(committed).isBetween(acknowledged, acknowledged + 1);
                for (TableIdentifier table : CatalogBatchWriter.TABLES) {
                    rows.add(batches(catalog, table));
                }
                List<Long> expected = new ArrayList<>();
                for (long batch = 1; batch <= committed; batch++) {
                    expected.add(batch);
                }
                assertThat(rows).allSatisfy(table -> assertThat(table).isEqualTo(expected));
            }
        }
    }

    private static List<Long> batches(Catalog catalog, TableIdentifier table) throws Exception {
        List<Long> batches = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(catalog.loadTable(table)).build()) {
            for (Record record : records) {
                batches.add((Long) record.getField("batch"));
            }
        }
        batches.sort(null);
        return batches;
    }
}
