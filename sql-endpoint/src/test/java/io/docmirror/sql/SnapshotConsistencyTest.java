package io.docmirror.sql;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.ContainerProperties;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every commit moves money between accounts and keeps the total; queries running while commits and compactions land
 * must always see the total, in the parent table and in its child table, so they never see half a batch or a
 * half-applied compaction.
 */
class SnapshotConsistencyTest {
    private static final int ACCOUNTS = 20;
    private static final int TOTAL = 1000;
    private static final String INVARIANT = "SELECT (SELECT count(*) FROM accounts), "
            + "(SELECT sum(balance)::BIGINT FROM accounts), (SELECT count(*) FROM accounts__entries), "
            + "(SELECT sum(amount)::BIGINT FROM accounts__entries)";

    private static final MirrorConfig COMPACTS_EVERY_THIRD_COMMIT = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "3"));

    @TempDir
    Path work;

    @Test
    void queriesDuringCommitsAndCompactionsSeeWholeBatchesOnly() throws Exception {
        try (MirroredData data = new MirroredData(work)) {
            data.store.createContainer(ContainerProperties.of("accounts", "/id").withAnalyticalTtl(-1));
            Random random = new Random(7);
            writeRound(data, random);
            assertThat(data.sync()).isEqualTo(1);

            SqlConfig config = SqlConfig.defaults().withRefreshInterval(Duration.ZERO);
            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config)) {
                AtomicBoolean writing = new AtomicBoolean(true);
                List<Throwable> failures = new CopyOnWriteArrayList<>();
                Set<Object> versionsSeen = ConcurrentHashMap.newKeySet();
                List<Thread> readers = new ArrayList<>();
                for (int reader = 0; reader < 2; reader++) {
                    Thread thread = new Thread(() -> {
                        try (Connection connection = endpoint.connect()) {
                            while (writing.get()) {
                                assertThat(SqlEndpointTest.rows(connection, INVARIANT))
                                        .containsExactly(List.of((long) ACCOUNTS, (long) TOTAL,
                                                (long) ACCOUNTS * 2, (long) TOTAL));
                                versionsSeen.add(SqlEndpointTest.rows(connection,
                                        "SELECT batch FROM docmirror_freshness").get(0).get(0));
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    }, "reader-" + reader);
                    thread.start();
                    readers.add(thread);
                }
                for (int round = 0; round < 25; round++) {
                    writeRound(data, random);
                    assertThat(data.sync(COMPACTS_EVERY_THIRD_COMMIT)).isEqualTo(1);
                }
                writing.set(false);
                for (Thread reader : readers) {
                    reader.join();
                }
                assertThat(failures).isEmpty();
                assertThat(versionsSeen).hasSizeGreaterThan(3);
                // Compactions ran between the commits: both tables' files were rewritten into fewer files.
                try (CatalogConnection catalog = MirrorCatalog.open(
                        CatalogSettings.embedded(data.mirrorDirectory()))) {
                    for (String table : List.of("accounts", "accounts__entries")) {
                        assertThat(catalog.catalog().loadTable(TableIdentifier.of("accounts", table)).snapshots())
                                .as(table).extracting(Snapshot::operation).contains(DataOperations.REPLACE);
                    }
                }
            }
        }
    }

    /** New balances for every account, summing to TOTAL; each account's two entries sum to its balance. */
    private static void writeRound(MirroredData data, Random random) {
        int[] balances = new int[ACCOUNTS];
        for (int unit = 0; unit < TOTAL; unit++) {
            balances[random.nextInt(ACCOUNTS)]++;
        }
        for (int account = 0; account < ACCOUNTS; account++) {
            int first = balances[account] == 0 ? 0 : random.nextInt(balances[account] + 1);
            data.store.upsertItem("accounts", "{\"id\":\"a" + account + "\",\"balance\":" + balances[account]
                    + ",\"entries\":[{\"amount\":" + first + "},{\"amount\":" + (balances[account] - first) + "}]}");
        }
    }
}
