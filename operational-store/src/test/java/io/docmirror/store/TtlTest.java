package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import io.docmirror.store.internal.RocksStorage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.WriteBatch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Time to live, by Cosmos DB's rules, with an injected clock (docs/architecture.md, "Cosmos DB behaviours"). */
class TtlTest {
    @TempDir
    Path dataDir;

    TestingClock clock = TestingClock.atEpochSecond(1_767_225_600);
    EmbeddedStore store;

    @BeforeEach
    void setUp() {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults(), clock, false);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void containerDefaultTtlExpiresItemsAfterTheirLastWrite() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(60));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        clock.advanceSeconds(50);
        store.upsertItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":2}");

        clock.advanceSeconds(59);
        assertThat(store.findItem("c", PartitionKey.of("p"), "a")).isPresent();
        clock.advanceSeconds(1);
        assertThat(store.findItem("c", PartitionKey.of("p"), "a")).isEmpty();
    }

    @Test
    void expiredItemIsInvisibleToEveryReadBeforeTheReaperRuns() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        clock.advanceSeconds(10);

        assertThat(store.findItem("c", PartitionKey.of("p"), "a")).isEmpty();
        assertThat(store.readPartition("c", PartitionKey.of("p"))).isEmpty();
        assertThat(StoreTesting.allItems(store, "c")).isEmpty();
        // Not yet removed: the change log has only the create.
        assertThat(StoreTesting.changeLog(store, "c")).extracting(ChangeEvent::operation).containsExactly(Operation.CREATE);
        // And a create of the same id succeeds, as the old item is gone for readers.
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":2}");
        assertThat(StoreTesting.changeLog(store, "c")).extracting(ChangeEvent::operation, ChangeEvent::ttlExpired)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Operation.CREATE, false),
                        org.assertj.core.groups.Tuple.tuple(Operation.DELETE, true),
                        org.assertj.core.groups.Tuple.tuple(Operation.CREATE, false));
    }

    @Test
    void reapedItemsNoLongerTakeSpaceOnDisk() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createContainer(ContainerProperties.of("kept", "/pk"));
        String padding = "x".repeat(1000);
        for (int index = 0; index < 2000; index++) {
            store.createItem("c", "{\"id\":\"" + index + "\",\"pk\":\"p" + index % 10 + "\",\"pad\":\"" + padding + "\"}");
        }
        store.createItem("kept", "{\"id\":\"k\",\"pk\":\"p\",\"pad\":\"" + padding + "\"}");
        ContainerUsage before = store.containerUsage("c");

        clock.advanceSeconds(11);
        while (store.reapExpired(1000) > 0) {
            // two rounds
        }
        ContainerUsage after = store.containerUsage("c");

        assertThat(before.itemBytes()).isGreaterThan(500_000);
        assertThat(after.itemBytes()).isLessThan(before.itemBytes() / 10);
        // The change log still holds the creates and the expiries, within retention.
        assertThat(after.changeLogBytes()).isGreaterThan(before.changeLogBytes());
        assertThat(store.containerUsage("kept").itemBytes()).isPositive();
    }

    @Test
    void aTtlDeleteNamesThePartitionKeyAsTheItemSpellsIt() {
        // The storage key holds 100 as 1E+2 and 1.10 as 1.1; the mirror keys its rows by the item's own spelling.
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"reaped\",\"pk\":100}");
        clock.advanceSeconds(5);
        store.createItem("c", "{\"id\":\"overwritten\",\"pk\":1.10}");
        clock.advanceSeconds(10);

        assertThat(store.reapExpired(1)).as("the first to expire").isEqualTo(1);
        store.createItem("c", "{\"id\":\"overwritten\",\"pk\":1.10,\"v\":2}");

        assertThat(StoreTesting.changeLog(store, "c")).filteredOn(ChangeEvent::ttlExpired)
                .extracting(event -> event.id() + " " + event.partitionKey().jsonText())
                .containsExactlyInAnyOrder("reaped 100", "overwritten 1.10");
    }

    @Test
    void reaperRemovesExpiredItemsWithATtlExpiredDelete() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":1}");
        store.createItem("c", "{\"id\":\"b\",\"pk\":\"q\",\"ttl\":100}");
        clock.advanceSeconds(10);

        assertThat(store.reapExpired(1000)).isEqualTo(1);
        assertThat(store.reapExpired(1000)).isZero();

        List<ChangeEvent> log = StoreTesting.changeLog(store, "c");
        ChangeEvent delete = log.stream().filter(event -> event.operation() == Operation.DELETE).findFirst().orElseThrow();
        assertThat(delete.id()).isEqualTo("a");
        assertThat(delete.ttlExpired()).isTrue();
        assertThat(delete.previous().orElseThrow().get("v").asInt()).isEqualTo(1);
        assertThat(delete.ts()).isEqualTo(clock.millis());
        assertThat(store.findItem("c", PartitionKey.of("q"), "b")).isPresent();
    }

    @Test
    void itemTtlOverridesTheContainerDefault() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(1000));
        store.createItem("c", "{\"id\":\"forever\",\"pk\":\"p\",\"ttl\":-1}");
        store.createItem("c", "{\"id\":\"short\",\"pk\":\"p\",\"ttl\":5}");
        clock.advanceSeconds(5);
        assertThat(store.readPartition("c", PartitionKey.of("p"))).extracting(Item::id).containsExactly("forever");
        clock.advanceSeconds(100_000);
        assertThat(store.reapExpired(1000)).isEqualTo(1);
        assertThat(store.readPartition("c", PartitionKey.of("p"))).extracting(Item::id).containsExactly("forever");
    }

    @Test
    void containerTtlMinusOneExpiresOnlyItemsWithTheirOwnTtl() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(-1));
        store.createItem("c", "{\"id\":\"plain\",\"pk\":\"p\"}");
        store.createItem("c", "{\"id\":\"ten\",\"pk\":\"p\",\"ttl\":10}");
        clock.advanceSeconds(10);
        assertThat(store.readPartition("c", PartitionKey.of("p"))).extracting(Item::id).containsExactly("plain");
    }

    @Test
    void withoutAContainerTtlItemTtlIsIgnored() {
        store.createContainer(ContainerProperties.of("c", "/pk"));
        store.createItem("c", "{\"id\":\"ten\",\"pk\":\"p\",\"ttl\":10}");
        clock.advanceSeconds(1_000_000);
        assertThat(store.findItem("c", PartitionKey.of("p"), "ten")).isPresent();
        assertThat(store.reapExpired(1000)).isZero();
    }

    @Test
    void writingAnItemMovesItsExpiry() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        clock.advanceSeconds(8);
        store.upsertItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"ttl\":-1}");
        clock.advanceSeconds(100);
        assertThat(store.reapExpired(1000)).isZero();
        assertThat(store.findItem("c", PartitionKey.of("p"), "a")).isPresent();
    }

    @Test
    void expiryIsRememberedAcrossRestart() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        store.close();
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults(), clock, false);
        clock.advanceSeconds(10);
        assertThat(store.reapExpired(1000)).isEqualTo(1);
    }

    @Test
    void turningTtlOnExpiresTheItemsOlderThanTheNewDefault() {
        store.createContainer(ContainerProperties.of("c", "/pk"));
        store.createItem("c", "{\"id\":\"old\",\"pk\":\"p\"}");
        clock.advanceSeconds(100);
        store.createItem("c", "{\"id\":\"new\",\"pk\":\"p\"}");
        clock.advanceSeconds(50);

        store.replaceContainer("c", store.readContainer("c").withDefaultTtl(120), Precondition.NONE);

        // "old" is 150 seconds old: gone for readers at once, then removed by the reaper with a TTL delete.
        assertThat(store.readPartition("c", PartitionKey.of("p"))).extracting(Item::id).containsExactly("new");
        assertThat(store.reapExpired(1000)).isEqualTo(1);
        assertThat(StoreTesting.changeLog(store, "c")).filteredOn(event -> event.operation() == Operation.DELETE)
                .extracting(ChangeEvent::id, ChangeEvent::ttlExpired)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("old", true));
        clock.advanceSeconds(69);
        assertThat(store.reapExpired(1000)).isZero();
        clock.advanceSeconds(1);
        assertThat(store.findItem("c", PartitionKey.of("p"), "new")).isEmpty();
        assertThat(store.reapExpired(1000)).isEqualTo(1);
    }

    @Test
    void ttlMinusOneByAReplaceExpiresOnlyItemsWithTheirOwnTtl() {
        store.createContainer(ContainerProperties.of("c", "/pk"));
        store.createItem("c", "{\"id\":\"plain\",\"pk\":\"p\"}");
        store.createItem("c", "{\"id\":\"ten\",\"pk\":\"p\",\"ttl\":10}");
        clock.advanceSeconds(20);
        assertThat(store.readPartition("c", PartitionKey.of("p"))).extracting(Item::id).containsExactly("plain", "ten");

        store.replaceContainer("c", store.readContainer("c").withDefaultTtl(-1), Precondition.NONE);

        assertThat(store.readPartition("c", PartitionKey.of("p"))).extracting(Item::id).containsExactly("plain");
        assertThat(store.reapExpired(1000)).isEqualTo(1);
        clock.advanceSeconds(1_000_000);
        assertThat(store.reapExpired(1000)).isZero();
        assertThat(store.findItem("c", PartitionKey.of("p"), "plain")).isPresent();
    }

    @Test
    void removingOrLengtheningTheTtlStopsTheExpiries() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createContainer(ContainerProperties.of("d", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        store.createItem("d", "{\"id\":\"a\",\"pk\":\"p\"}");
        clock.advanceSeconds(5);

        store.replaceContainer("c", store.readContainer("c").withDefaultTtl(null), Precondition.NONE);
        store.replaceContainer("d", store.readContainer("d").withDefaultTtl(1000), Precondition.NONE);
        clock.advanceSeconds(500);

        assertThat(store.reapExpired(1000)).isZero();
        assertThat(store.findItem("c", PartitionKey.of("p"), "a")).isPresent();
        assertThat(store.findItem("d", PartitionKey.of("p"), "a")).isPresent();
        clock.advanceSeconds(1_000_000);
        assertThat(store.findItem("c", PartitionKey.of("p"), "a")).isPresent();
        assertThat(store.findItem("d", PartitionKey.of("p"), "a")).isEmpty();
        assertThat(store.reapExpired(1000)).isEqualTo(1);
    }

    @Test
    void replacedSettingsAndTheirExpiriesSurviveARestart() {
        store.createContainer(ContainerProperties.of("c", "/pk"));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        ContainerProperties replaced = store.replaceContainer("c",
                store.readContainer("c").withDefaultTtl(60).withAnalyticalTtl(-1), Precondition.NONE);
        store.close();

        store = EmbeddedStore.open(dataDir, StoreConfig.defaults(), clock, false);

        assertThat(store.readContainer("c")).isEqualTo(replaced);
        clock.advanceSeconds(59);
        assertThat(store.reapExpired(1000)).isZero();
        clock.advanceSeconds(1);
        assertThat(store.reapExpired(1000)).isEqualTo(1);
        // The next replace gives yet another etag, not one the container had before the restart.
        assertThat(store.replaceContainer("c", replaced, Precondition.ifMatch(replaced.etag())).etag())
                .isNotEqualTo(replaced.etag());
    }

    @Test
    void anExpiryIndexRebuildThatACrashCutShortIsDoneWhenTheStoreOpens() throws Exception {
        store.createContainer(ContainerProperties.of("c", "/pk"));
        // More items than the rebuild writes at once.
        List<byte[]> documents = new ArrayList<>();
        for (int index = 0; index < 25_000; index++) {
            documents.add(("{\"id\":\"" + index + "\",\"pk\":\"p" + index % 7 + "\"}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        assertThat(store.bulkWrite("c", documents, BulkOptions.CREATE).written()).isEqualTo(25_000);
        store.close();
        // What a replace to a default TTL of 60 has written when a crash stops it: the new settings, marked as
        // having their expiry index rebuilt, and none of the index yet.
        try (RocksStorage storage = RocksStorage.open(dataDir, true)) {
            byte[] key = "c".getBytes(StandardCharsets.UTF_8);
            var record = StoreJson.mapper().readValue(storage.get(storage.containers(), key),
                    ContainerCatalog.StoredContainer.class);
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(storage.containers(), key, StoreJson.mapper().writeValueAsBytes(
                        new ContainerCatalog.StoredContainer(record.properties().withDefaultTtl(60),
                                record.containerId(), 1, true)));
                storage.write(batch);
            }
        }

        store = EmbeddedStore.open(dataDir, StoreConfig.defaults(), clock, false);
        clock.advanceSeconds(60);

        assertThat(store.readContainer("c").defaultTtl()).isEqualTo(60);
        int reaped = 0;
        for (int removed = store.reapExpired(10_000); removed > 0; removed = store.reapExpired(10_000)) {
            reaped += removed;
        }
        assertThat(reaped).isEqualTo(25_000);
        assertThat(StoreTesting.allItems(store, "c")).isEmpty();
    }

    @Test
    void replaceOfAnExpiredItemIsNotFound() {
        store.createContainer(ContainerProperties.of("c", "/pk").withDefaultTtl(10));
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\"}");
        clock.advanceSeconds(10);
        StoreContractTest.assertError(() -> store.replaceItem("c", PartitionKey.of("p"), "a", "{\"id\":\"a\",\"pk\":\"p\"}"),
                404, "it does not exist");
    }
}
