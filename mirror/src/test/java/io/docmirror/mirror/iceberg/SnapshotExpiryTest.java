package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An expiry deletes the files only expired snapshots needed after its commit moved the tables' pointers, never before:
 * a mirror stopped between the two (a kill, a failed commit) must find every file its tables name.
 */
class SnapshotExpiryTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);
    /** Every snapshot but the newest is due at once. */
    private static final MirrorConfig EXPIRES_ALL_BUT_ONE = MirrorConfig.fromProperties(Map.of(
            "mirror.snapshots.keep", "1", "mirror.snapshots.keep-ms", "1"));

    @TempDir
    Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private Path mirror;

    @BeforeEach
    void mirrorSeveralBatches() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ORDERS);
        mirror = work.resolve("mirror");
        for (int batch = 0; batch < 4; batch++) {
            store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":" + batch + "}");
            FeedSync.sync(store, ORDERS, mirror, FlattenerConfig.defaults("orders"), MirrorConfig.defaults(), clock);
        }
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void anExpiryWhoseCommitFailsDeletesNothing() throws Exception {
        CatalogSettings settings = CatalogSettings.embedded(mirror);
        Thread.sleep(5); // older than keep-ms, by the system clock Iceberg stamps snapshots with
        try (CatalogConnection catalog = MirrorCatalog.open(settings)) {
            List<TableIdentifier> tables = catalog.catalog().listTables(MirrorTables.namespace("orders"));
            CatalogBatch failing = new FailingAtCommit(CatalogBatch.of(settings, catalog, new LocalFileIO()));
            assertThatThrownBy(() -> SnapshotExpiry.expire(failing, tables, OptionalLong.empty(), EXPIRES_ALL_BUT_ONE,
                    catalog.workers())).hasMessage("the catalog commit failed");
        }
        List<String> missing = missingFiles(settings);
        assertThat(missing).as("files the tables still name").isEmpty();
    }

    @Test
    void anExpiryThatCommitsDeletesWhatOnlyExpiredSnapshotsNeeded() throws Exception {
        CatalogSettings settings = CatalogSettings.embedded(mirror);
        Path metadata = mirror.resolve("warehouse").resolve("orders").resolve("orders").resolve("metadata");
        long manifestListsBefore = manifestLists(metadata);
        Thread.sleep(5);
        try (CatalogConnection catalog = MirrorCatalog.open(settings)) {
            SnapshotExpiry.expire(CatalogBatch.of(settings, catalog, new LocalFileIO()),
                    catalog.catalog().listTables(MirrorTables.namespace("orders")), OptionalLong.empty(),
                    EXPIRES_ALL_BUT_ONE, catalog.workers());
        }
        assertThat(missingFiles(settings)).isEmpty();
        assertThat(manifestLists(metadata)).as("manifest lists, %d before", manifestListsBefore)
                .isLessThan(manifestListsBefore);
    }

    /** The manifest lists of every snapshot the catalog's tables name that are not on disk. */
    private List<String> missingFiles(CatalogSettings settings) {
        List<String> missing = new ArrayList<>();
        try (CatalogConnection catalog = MirrorCatalog.open(settings)) {
            for (TableIdentifier identifier : catalog.catalog().listTables(MirrorTables.namespace("orders"))) {
                Table table = catalog.catalog().loadTable(identifier);
                for (Snapshot snapshot : table.snapshots()) {
                    if (!Files.exists(LocalFileIO.pathOf(snapshot.manifestListLocation()))) {
                        missing.add(identifier + ": " + snapshot.manifestListLocation());
                    }
                }
            }
        }
        return missing;
    }

    private static long manifestLists(Path metadata) throws Exception {
        try (var files = Files.list(metadata)) {
            return files.filter(file -> file.getFileName().toString().startsWith("snap-")).count();
        }
    }

    /** A batch that stages like the real one and fails to commit, as a kill before the commit would leave it. */
    private record FailingAtCommit(CatalogBatch staged) implements CatalogBatch {
        @Override
        public boolean exists(TableIdentifier identifier) {
            return staged.exists(identifier);
        }

        @Override
        public Table table(TableIdentifier identifier) {
            return staged.table(identifier);
        }

        @Override
        public Transaction create(TableIdentifier identifier, Schema schema, String location,
                Map<String, String> properties) {
            return staged.create(identifier, schema, location, properties);
        }

        @Override
        public Transaction replace(TableIdentifier identifier, Schema schema, Map<String, String> properties) {
            return staged.replace(identifier, schema, properties);
        }

        @Override
        public void drop(TableIdentifier identifier) {
            staged.drop(identifier);
        }

        @Override
        public Map<TableIdentifier, TableMetadata> commit() {
            throw new IllegalStateException("the catalog commit failed");
        }
    }
}
