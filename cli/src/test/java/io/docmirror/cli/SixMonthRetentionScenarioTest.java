package io.docmirror.cli;

import io.docmirror.demo.DemoDataset;
import io.docmirror.demo.OrderGenerator;
import io.docmirror.feed.derive.Derivation;
import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.feed.processor.ProcessorOptions;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed scenario of controlled redundancy, end to end with an injected clock: a year of orders written into
 * CustomersOrdersAndItems (six-month TTL) as the clock advances, derived into Customers, Orders and Items by the
 * documented example configuration, and mirrored. When the clock moves on and the source expires its first half
 * year, the derived containers and their mirrored tables still answer for the whole year, with the same results.
 */
class SixMonthRetentionScenarioTest {
    private static final int SIX_MONTHS_SECONDS = (int) Duration.ofDays(182).toSeconds();
    private static final int ORDERS = 2000;
    private static final Instant YEAR_START = Instant.parse("2025-01-01T00:00:00Z");
    private static final String REVENUE_PER_MONTH_AND_STATE = """
            SELECT substr(o.orderDate, 1, 7) AS month, o.billingState AS state, count(DISTINCT o.id) AS orders,
                   sum(i.quantity * CAST(i.unitPrice AS DECIMAL(18, 2))) AS revenue
            FROM Orders o JOIN Items i ON i.orderId = o.id
            GROUP BY ALL ORDER BY ALL""";

    @TempDir
    Path dataDir;

    private final TestingClock clock = new TestingClock(YEAR_START);

    @Test
    void theDerivedContainersKeepTheWholeYearAfterTheSourceExpiresHalfOfIt() throws Exception {
        List<Derivation> derivations = DataDirOptions.of(dataDir, exampleConfig()).derivations();
        Path mirrorDirectory = MirrorLayout.mirrorDirectory(dataDir);
        try (EmbeddedStore store = StoreTesting.openWithClock(dataDir.resolve("store"), clock);
                DerivationRunner runner = new DerivationRunner(store, derivations,
                        name -> ProcessorOptions.defaults(name, "scenario"), clock);
                FeedMirror mirror = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                        FlattenerConfig::defaults, clock)) {
            store.createContainer(ContainerProperties.of(DemoDataset.CONTAINER, "/customerId")
                    .withDefaultTtl(SIX_MONTHS_SECONDS).withAnalyticalTtl(-1));
            writeAYearOfOrders(store);
            runner.catchUp();
            mirror.sync();
            List<List<Object>> beforeExpiry = query(mirrorDirectory, REVENUE_PER_MONTH_AND_STATE);
            long derivedOrders = StoreTesting.allItems(store, "Orders").size();

            clock.advance(Duration.ofDays(1));
            while (store.reapExpired(1000) > 0) {
                // Removes what is older than six months, a thousand at a time, each a DELETE with ttlExpired.
            }
            runner.catchUp();
            mirror.sync();

            List<Item> source = StoreTesting.allItems(store, DemoDataset.CONTAINER);
            Instant oldestKept = source.stream().map(item -> Instant.ofEpochSecond(item.tree().get("_ts").longValue()))
                    .min(Instant::compareTo).orElseThrow();
            assertThat(source.size()).isBetween(ORDERS / 3, ORDERS * 2 / 3);
            assertThat(oldestKept).isAfter(clock.instant().minusSeconds(SIX_MONTHS_SECONDS));
            assertThat(StoreTesting.allItems(store, "Orders")).hasSize((int) derivedOrders);
            assertThat(runner.status().get(0).errors()).isZero();

            List<List<Object>> afterExpiry = query(mirrorDirectory, REVENUE_PER_MONTH_AND_STATE);
            assertThat(afterExpiry).isEqualTo(beforeExpiry);
            // Twelve months, every state, and the orders the user deleted are gone from every month's count.
            assertThat(afterExpiry.stream().map(row -> row.get(0)).distinct()).hasSize(12);
            assertThat(afterExpiry.stream().mapToLong(row -> ((Number) row.get(2)).longValue()).sum())
                    .isEqualTo(derivedOrders);
            // Every customer who ever ordered, including those whose only order was deleted: a customer outlives
            // their orders (delete-with-source: false).
            OrderGenerator generator = new OrderGenerator(42, ORDERS / 5);
            long customers = IntStream.range(0, ORDERS).mapToObj(generator::customerId).distinct().count();
            assertThat(query(mirrorDirectory, "SELECT count(*) FROM Customers").get(0).get(0)).isEqualTo(customers);
        }
    }

    /**
     * Order k is placed (and written) at its moment of the year; every fifth is later marked shipped, and every
     * fiftieth deleted by the user.
     */
    private void writeAYearOfOrders(EmbeddedStore store) {
        OrderGenerator generator = new OrderGenerator(42, ORDERS / 5);
        Duration step = Duration.ofDays(365).dividedBy(ORDERS);
        List<Integer> deleted = new ArrayList<>();
        for (int index = 0; index < ORDERS; index++) {
            Instant placedAt = YEAR_START.plus(step.multipliedBy(index));
            clock.advance(Duration.between(clock.instant(), placedAt));
            store.createItem(DemoDataset.CONTAINER, generator.order(index, placedAt));
            if (index % 5 == 4) {
                Item earlier = store.readItem(DemoDataset.CONTAINER, PartitionKey.of(generator.customerId(index - 2)),
                        "order-" + (index - 2));
                store.replaceItem(DemoDataset.CONTAINER, earlier.partitionKey(), earlier.id(),
                        earlier.tree().put("status", "shipped").toString());
            }
            if (index % 50 == 49) {
                store.deleteItem(DemoDataset.CONTAINER, PartitionKey.of(generator.customerId(index - 10)),
                        "order-" + (index - 10));
                deleted.add(index - 10);
            }
        }
        assertThat(deleted).hasSize(ORDERS / 50);
    }

    private static ConfigFileOption exampleConfig() {
        ConfigFileOption option = new ConfigFileOption();
        option.file = Optional.of(Path.of("..", "docs", "examples", "customers-orders-items.yaml"));
        return option;
    }

    private static List<List<Object>> query(Path mirrorDirectory, String sql) throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        try (SqlEndpoint endpoint = SqlEndpoint.open(mirrorDirectory, SqlConfig.defaults());
                Connection connection = endpoint.connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= columns; column++) {
                    row.add(result.getObject(column));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
