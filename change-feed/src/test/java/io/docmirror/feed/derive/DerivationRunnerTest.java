package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.feed.FeedRange;
import io.docmirror.feed.processor.ChangeFeedContext;
import io.docmirror.feed.processor.ProcessorOptions;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static io.docmirror.feed.derive.DerivationTesting.SOURCE;
import static io.docmirror.feed.derive.DerivationTesting.contents;
import static io.docmirror.feed.derive.DerivationTesting.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DerivationRunnerTest {
    private static final int SOURCE_TTL_SECONDS = 3600;

    @TempDir
    Path dataDir;

    private final TestingClock clock = new TestingClock(Instant.parse("2025-01-01T00:00:00Z"));
    private EmbeddedStore store;
    private DerivationRunner runner;

    @BeforeEach
    void openStore() {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults(), clock, false);
        store.createContainer(ContainerProperties.of(SOURCE, "/customerId").withDefaultTtl(SOURCE_TTL_SECONDS));
        runner = runner(store);
    }

    @AfterEach
    void closeStore() {
        runner.close();
        store.close();
    }

    private DerivationRunner runner(EmbeddedStore on) {
        return new DerivationRunner(on, List.of(DerivationTesting.scenario()),
                name -> ProcessorOptions.defaults(name, "test-worker"), clock);
    }

    @Test
    void fillsCustomersOrdersAndItemsWithLineage() throws Exception {
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2"));
        store.createItem(SOURCE, order("order-2", "customer-7", "TX", "2025-03-02", "SKU-3"));

        assertThat(runner.catchUp()).isEqualTo(2);

        assertThat(contents(store, "Orders")).containsOnlyKeys("order-1", "order-2");
        assertThat(contents(store, "Items")).containsOnlyKeys("order-1:0", "order-1:1", "order-2:0");
        Map<String, JsonNode> customers = contents(store, "Customers");
        assertThat(customers).containsOnlyKeys("customer-7");
        // The later order wrote the customer last: its billing state is the customer's.
        assertThat(customers.get("customer-7").get("billingAddress_state").textValue()).isEqualTo("TX");
        JsonNode lineage = contents(store, "Items").get("order-1:1").get(TargetMapping.LINEAGE_FIELD);
        Item source = store.readItem(SOURCE, PartitionKey.of("customer-7"), "order-1");
        assertThat(lineage.get("derivation").textValue()).isEqualTo("orders");
        assertThat(lineage.get("container").textValue()).isEqualTo(SOURCE);
        assertThat(lineage.get("id").textValue()).isEqualTo("order-1");
        assertThat(lineage.get("lsn").longValue()).isEqualTo(source.lsn());
        // The targets are created mirrored, with the configured partition key.
        assertThat(store.readContainer("Items").partitionKeyPath()).isEqualTo("/customerId");
        assertThat(store.readContainer("Items").isMirrored()).isTrue();
    }

    @Test
    void aUserDeleteCascadesToOrdersAndItemsButTheCustomerStays() throws Exception {
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2"));
        store.createItem(SOURCE, order("order-2", "customer-7", "WA", "2025-03-02", "SKU-3"));
        runner.catchUp();

        store.deleteItem(SOURCE, PartitionKey.of("customer-7"), "order-1");
        runner.catchUp();

        assertThat(contents(store, "Orders")).containsOnlyKeys("order-2");
        assertThat(contents(store, "Items")).containsOnlyKeys("order-2:0");
        assertThat(contents(store, "Customers")).containsOnlyKeys("customer-7");
    }

    @Test
    void anUpdateThatRemovesALineItemRemovesItFromItems() throws Exception {
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2", "SKU-3"));
        runner.catchUp();

        store.upsertItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2"));
        runner.catchUp();

        assertThat(contents(store, "Items")).containsOnlyKeys("order-1:0", "order-1:1");
    }

    @Test
    void aTtlExpiryOfTheSourceLeavesEveryDerivedDocument() throws Exception {
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2"));
        runner.catchUp();
        Map<String, JsonNode> itemsBefore = contents(store, "Items");

        clock.advance(Duration.ofSeconds(SOURCE_TTL_SECONDS + 1));
        assertThat(store.reapExpired(100)).isEqualTo(1);
        runner.catchUp();

        assertThat(StoreTesting.allItems(store, SOURCE)).isEmpty();
        assertThat(StoreTesting.changeLog(store, SOURCE)).last().extracting(ChangeEvent::ttlExpired).isEqualTo(true);
        assertThat(contents(store, "Items")).isEqualTo(itemsBefore);
        assertThat(contents(store, "Orders")).containsOnlyKeys("order-1");
        assertThat(contents(store, "Customers")).containsOnlyKeys("customer-7");
    }

    @Test
    void replayingFromTheBeginningTwiceWritesNothingAndGivesTheSameState() throws Exception {
        writeHistory();
        runner.catchUp();
        Map<String, Map<String, JsonNode>> first = targets();
        List<Item> storedFirst = StoreTesting.allItems(store, "Items");

        for (int replay = 0; replay < 2; replay++) {
            resetCheckpoints();
            DerivationRunner replaying = runner(store);
            assertThat(replaying.catchUp()).isEqualTo(StoreTesting.changeLog(store, SOURCE).size());
            replaying.close();
            assertThat(targets()).isEqualTo(first);
        }
        // Not one target was rewritten: the LSN guard skipped every replayed change (same ETags as before).
        assertThat(StoreTesting.allItems(store, "Items")).isEqualTo(storedFirst);
    }

    @Test
    void aRedeliveredOlderChangeNeverMovesATargetBack() throws Exception {
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1"));
        store.upsertItem(SOURCE, order("order-1", "customer-7", "OR", "2025-03-01", "SKU-1"));
        runner.catchUp();
        List<ChangeEvent> log = StoreTesting.changeLog(store, SOURCE);
        int range = contents(store, "Orders").get("order-1").get(TargetMapping.LINEAGE_FIELD).get("range").intValue();

        DerivationHandler handler = new DerivationHandler(store, DerivationTesting.scenario(), runner.errors());
        handler.handle(new ChangeFeedContext(new FeedRange(SOURCE, range), "test-worker", "unused"),
                List.of(log.get(0)));

        assertThat(contents(store, "Customers").get("customer-7").get("billingAddress_state").textValue())
                .isEqualTo("OR");
        assertThat(handler.documentsWritten()).isZero();
    }

    @Test
    void aDocumentThatCannotBeDerivedIsRecordedAndTheRestGoesOn() throws Exception {
        ObjectNode broken = (ObjectNode) DerivationTesting.json(order("order-1", "customer-7", "WA", "2025-03-01"));
        broken.put("items", "none");
        store.createItem(SOURCE, broken.toString());
        store.createItem(SOURCE, order("order-2", "bad/customer", "WA", "2025-03-02", "SKU-1"));
        store.createItem(SOURCE, order("order-3", "customer-8", "WA", "2025-03-03", "SKU-1"));

        runner.catchUp();

        // order-1: no Items, but its order and customer; order-2: a customer id the store refuses, the rest written.
        assertThat(contents(store, "Orders")).containsOnlyKeys("order-1", "order-2", "order-3");
        assertThat(contents(store, "Items")).containsOnlyKeys("order-2:0", "order-3:0");
        assertThat(contents(store, "Customers")).containsOnlyKeys("customer-7", "customer-8");
        List<ObjectNode> errors = runner.errors().list("orders").stream()
                .sorted(Comparator.comparing(error -> error.get("sourceId").textValue())).toList();
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0).get("sourceId").textValue()).isEqualTo("order-1");
        assertThat(errors.get(0).get("target").textValue()).isEqualTo("Items");
        assertThat(errors.get(0).get("reason").textValue())
                .isEqualTo("Cannot derive a Items document: at /items, split needs an array, found string");
        assertThat(errors.get(1).get("sourceId").textValue()).isEqualTo("order-2");
        assertThat(errors.get(1).get("target").textValue()).isEqualTo("Customers");
        assertThat(errors.get(1).get("reason").textValue()).startsWith("Cannot write derived document bad/customer "
                + "to Customers: ");
        assertThat(runner.status().get(0).errors()).isEqualTo(2);
    }

    @Test
    void anUpdateThatCannotBeDerivedLeavesWhatTheLastGoodVersionProduced() throws Exception {
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2"));
        runner.catchUp();
        Map<String, JsonNode> itemsBefore = contents(store, "Items");
        ObjectNode broken = (ObjectNode) DerivationTesting.json(order("order-1", "customer-7", "OR", "2025-03-01"));
        broken.put("items", "none");

        store.upsertItem(SOURCE, broken.toString());
        runner.catchUp();

        // Items keeps the earlier line items (the error says why they are not newer); Orders takes the update.
        assertThat(contents(store, "Items")).isEqualTo(itemsBefore);
        long updated = store.readItem(SOURCE, PartitionKey.of("customer-7"), "order-1").lsn();
        assertThat(contents(store, "Orders").get("order-1").get(TargetMapping.LINEAGE_FIELD).get("lsn").longValue())
                .isEqualTo(updated);
        assertThat(runner.errors().list("orders")).singleElement()
                .satisfies(error -> assertThat(error.get("target").textValue()).isEqualTo("Items"));
    }

    @Test
    void statusShowsTheLagUntilCaughtUp() throws Exception {
        runner.prepare();
        store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1"));
        clock.advance(Duration.ofSeconds(5));

        DerivationStatus behind = runner.status().get(0);
        assertThat(behind.eventsBehind()).isEqualTo(1);
        assertThat(behind.timeBehind()).isEqualTo(Duration.ofSeconds(5));
        assertThat(behind.targets()).containsExactly("Customers", "Orders", "Items");

        runner.catchUp();

        DerivationStatus caughtUp = runner.status().get(0);
        assertThat(caughtUp.eventsBehind()).isZero();
        assertThat(caughtUp.timeBehind()).isZero();
        assertThat(caughtUp.eventsDerived()).isEqualTo(1);
        assertThat(caughtUp.documentsWritten()).isEqualTo(3);
    }

    @Test
    void aMissingSourceOrATargetWithAnotherPartitionKeyIsRefused() {
        store.createContainer(ContainerProperties.of("Items", "/orderId"));

        assertThatThrownBy(runner::prepare)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Derivation orders writes container Items with partition key /customerId, but it exists "
                        + "with partition key /orderId; a partition key cannot change, so delete the container or fix "
                        + "the configuration");

        store.deleteContainer(SOURCE);
        assertThatThrownBy(runner(store)::prepare)
                .hasMessage("Derivation orders reads container CustomersOrdersAndItems, which does not exist; create "
                        + "it or fix the configuration");
    }

    @Test
    void theBackgroundRunnerKeepsUpWithNewChanges() throws Exception {
        DerivationRunner background = new DerivationRunner(store, List.of(DerivationTesting.scenario()),
                name -> ProcessorOptions.defaults(name, "background").withTimings(Duration.ofSeconds(2),
                        Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(20), Duration.ofMillis(50)),
                Clock.systemUTC());
        background.start();
        try {
            store.createItem(SOURCE, order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (contents(store, "Items").size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(contents(store, "Items")).containsOnlyKeys("order-1:0", "order-1:1");
        } finally {
            background.close();
        }
    }

    /** Creates, updates and deletes across several customers. */
    private void writeHistory() {
        for (int order = 0; order < 30; order++) {
            String customer = "customer-" + order % 7;
            store.createItem(SOURCE, order("order-" + order, customer, "WA", "2025-03-01", "SKU-1", "SKU-2", "SKU-3"));
        }
        for (int order = 0; order < 30; order += 3) {
            store.upsertItem(SOURCE, order("order-" + order, "customer-" + order % 7, "TX", "2025-03-01", "SKU-9"));
        }
        for (int order = 1; order < 30; order += 5) {
            store.deleteItem(SOURCE, PartitionKey.of("customer-" + order % 7), "order-" + order);
        }
    }

    private Map<String, Map<String, JsonNode>> targets() {
        return Map.of("Customers", contents(store, "Customers"), "Orders", contents(store, "Orders"),
                "Items", contents(store, "Items"));
    }

    private void resetCheckpoints() {
        for (Item lease : StoreTesting.allItems(store, ProcessorOptions.DEFAULT_LEASE_CONTAINER)) {
            store.deleteItem(ProcessorOptions.DEFAULT_LEASE_CONTAINER, lease.partitionKey(), lease.id());
        }
    }
}
