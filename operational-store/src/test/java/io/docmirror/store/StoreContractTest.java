package io.docmirror.store;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store's semantics, run against every {@link StoreClient}: in-process and over HTTP must behave the same.
 * Every rejected operation is checked to leave the store exactly as it was.
 */
abstract class StoreContractTest {
    static final String ORDERS = "orders";

    @TempDir
    Path dataDir;

    StoreClient store;

    /** A client over a fresh store in {@code dataDir}. */
    abstract StoreClient openClient(Path dataDir);

    @BeforeEach
    void setUp() {
        store = openClient(dataDir);
        store.createContainer(ContainerProperties.of(ORDERS, "/customerId"));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    // Containers

    @Test
    void aDeleteNamesThePartitionKeyAsTheItemSpellsItWhateverSpellingTheCallerGave() {
        // 100 and 1e2 are one key to the store, but the mirror finds the row to delete by the item's own spelling.
        store.createContainer(ContainerProperties.of("numbers", "/pk").withLogPartitions(1));
        store.createItem("numbers", "{\"id\":\"a\",\"pk\":100}");
        store.createItem("numbers", "{\"id\":\"b\",\"pk\":1.10}");
        store.createItem("numbers", "{\"id\":\"c\",\"pk\":12345678901234567890}");

        store.deleteItem("numbers", PartitionKey.fromWire("[1e2]"), "a", Precondition.NONE);
        store.deleteItem("numbers", PartitionKey.fromWire("[1.1]"), "b", Precondition.NONE);
        store.deleteItem("numbers", PartitionKey.fromWire("[12345678901234567890.0]"), "c", Precondition.NONE);

        assertThat(StoreTesting.changeLog(store, "numbers"))
                .extracting(event -> event.operation() + " " + event.id() + " " + event.partitionKey().jsonText())
                .containsExactly("CREATE a 100", "CREATE b 1.10", "CREATE c 12345678901234567890",
                        "DELETE a 100", "DELETE b 1.10", "DELETE c 12345678901234567890");
    }

    @Test
    void containersAreCreatedReadListedAndDeleted() {
        ContainerProperties events = new ContainerProperties("events", "/tenant/id", 3600, -1, 8);
        ContainerProperties created = store.createContainer(events);

        assertThat(created.resourceId()).isNotBlank();
        assertThat(created.withResourceId(null).withEtag(null)).isEqualTo(events);
        assertThat(store.readContainer("events")).isEqualTo(created);
        assertThat(store.listContainers()).extracting(ContainerProperties::id).containsExactly("events", ORDERS);

        store.createItem("events", "{\"id\":\"e1\",\"tenant\":{\"id\":\"t1\"}}");
        store.deleteContainer("events");

        assertThat(store.listContainers()).extracting(ContainerProperties::id).containsExactly(ORDERS);
        assertError(() -> store.readContainer("events"), 404, "Container events does not exist");
        // A new container of the same name starts empty, and is told apart from the old one by its resource id.
        assertThat(store.createContainer(events).resourceId()).isNotEqualTo(created.resourceId());
        assertThat(store.readContainer("events").resourceId()).isNotEqualTo(created.resourceId());
        assertThat(store.findItem("events", PartitionKey.of("t1"), "e1")).isEmpty();
        assertThat(StoreTesting.changeLog(store, "events")).isEmpty();
    }

    @Test
    void creatingAnExistingContainerIsAConflict() {
        assertError(() -> store.createContainer(ContainerProperties.of(ORDERS, "/other")), 409,
                "Cannot create container orders: it already exists");
        assertThat(store.readContainer(ORDERS).partitionKeyPath()).isEqualTo("/customerId");
    }

    @Test
    void aContainersTtlsAreReplacedAndItsEtagChanges() {
        ContainerProperties read = store.readContainer(ORDERS);
        ContainerProperties replaced = store.replaceContainer(ORDERS,
                read.withDefaultTtl(3600).withAnalyticalTtl(-1), Precondition.ifMatch(read.etag()));

        assertThat(replaced).isEqualTo(read.withDefaultTtl(3600).withAnalyticalTtl(-1).withEtag(replaced.etag()));
        assertThat(replaced.etag()).isNotBlank().isNotEqualTo(read.etag());
        assertThat(store.readContainer(ORDERS)).isEqualTo(replaced);
        assertThat(store.listContainers()).containsExactly(replaced);
        // As in Cosmos DB: no default TTL turns TTL off, no analytical TTL keeps the one the container has.
        ContainerProperties again = store.replaceContainer(ORDERS, ContainerProperties.of(ORDERS, "/customerId"),
                Precondition.NONE);
        assertThat(again.defaultTtl()).isNull();
        assertThat(again.analyticalTtl()).isEqualTo(-1);
        assertThat(again.etag()).isNotEqualTo(replaced.etag());
        // A mirrored container's analytical TTL may change, between -1 and a number of seconds.
        assertThat(store.replaceContainer(ORDERS, again.withAnalyticalTtl(86_400), Precondition.NONE).analyticalTtl())
                .isEqualTo(86_400);
    }

    @Test
    void aReplaceOfWhatCannotChangeIsRefusedAndChangesNothing() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        ContainerProperties before = store.replaceContainer(ORDERS,
                store.readContainer(ORDERS).withAnalyticalTtl(-1), Precondition.NONE);
        String refused = "Cannot replace container orders: ";

        assertError(() -> store.replaceContainer(ORDERS, before.withDefaultTtl(60).withEtag(null),
                Precondition.ifMatch("\"stale\"")), 412, refused + "If-Match failed, its _etag is " + before.etag()
                + ", not \"stale\"");
        assertError(() -> store.replaceContainer(ORDERS, ContainerProperties.of(ORDERS, "/region"), Precondition.NONE),
                400, refused + "its partition key cannot be changed (it is /customerId, the replace asks for /region)");
        assertError(() -> store.replaceContainer(ORDERS, ContainerProperties.of("other", "/customerId"),
                Precondition.NONE), 400, refused + "its id cannot be changed (the replace names other)");
        assertError(() -> store.replaceContainer(ORDERS, before.withLogPartitions(8), Precondition.NONE), 400,
                refused + "its log partitions cannot be changed (it has 4, the replace asks for 8)");
        assertError(() -> store.replaceContainer(ORDERS,
                before.withPartitionHashing(ContainerProperties.PartitionHashing.COSMOS_HASH_V2), Precondition.NONE),
                400, refused + "its partition hashing cannot be changed (it is the store's own hash, the replace asks "
                        + "for cosmos-hash-v2)");
        assertError(() -> store.replaceContainer(ORDERS, before.withAnalyticalTtl(0), Precondition.NONE), 400,
                refused + "its analytical store cannot be turned off (analytical TTL -1 to 0); delete the container "
                        + "to stop mirroring it");
        assertError(() -> store.replaceContainer("nope", ContainerProperties.of("nope", "/customerId"),
                Precondition.NONE), 404, "Container nope does not exist");

        assertThat(store.readContainer(ORDERS)).isEqualTo(before);
        assertThat(store.listContainers()).extracting(ContainerProperties::id).containsExactly(ORDERS);
        assertThat(store.readItem(ORDERS, PartitionKey.of("c1"), "o1").id()).isEqualTo("o1");
    }

    @Test
    void unknownContainerIsNotFound() {
        assertError(() -> store.createItem("nope", "{\"id\":\"1\"}"), 404, "Container nope does not exist");
        assertError(() -> store.deleteContainer("nope"), 404, "Container nope does not exist");
        assertError(() -> store.readChangeLog("nope", 0, 0, 10), 404, "Container nope does not exist");
    }

    // Items

    @Test
    void createdItemHasSystemProperties() {
        Item item = store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":12.50}");

        var tree = item.tree();
        assertThat(tree.get("_rid").asText()).isNotEmpty();
        assertThat(tree.get("_etag").asText()).isEqualTo(item.etag());
        assertThat(tree.get("_ts").asLong()).isPositive();
        assertThat(tree.get("_lsn").asLong()).isEqualTo(item.lsn());
        assertThat(item.json()).contains("\"total\":12.50");
        assertThat(store.readItem(ORDERS, PartitionKey.of("c1"), "o1")).isEqualTo(item);
    }

    @Test
    void systemPropertiesSentByTheClientAreReplaced() {
        Item item = store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"_etag\":\"fake\",\"_lsn\":999}");

        assertThat(item.tree().get("_etag").asText()).isEqualTo(item.etag()).isNotEqualTo("fake");
        assertThat(item.tree().get("_lsn").asLong()).isEqualTo(1);
    }

    @Test
    void createOfAnExistingIdIsAConflictAndChangesNothing() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");

        assertUnchanged(() -> store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}"), 409,
                "Cannot create item 'o1' in container orders: an item with this id already exists in partition [\"c1\"]");
        // The same id in another logical partition is another item.
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c2\",\"v\":3}");
        assertThat(store.readItem(ORDERS, PartitionKey.of("c1"), "o1").tree().get("v").asInt()).isEqualTo(1);
    }

    @Test
    void upsertCreatesThenReplacesKeepingRid() {
        Item created = store.upsertItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");
        Item replaced = store.upsertItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}");

        assertThat(replaced.etag()).isNotEqualTo(created.etag());
        assertThat(replaced.tree().get("_rid")).isEqualTo(created.tree().get("_rid"));
        assertThat(replaced.tree().get("v").asInt()).isEqualTo(2);
        assertThat(StoreTesting.changeLog(store, ORDERS)).extracting(ChangeEvent::operation)
                .containsExactly(Operation.CREATE, Operation.REPLACE);
    }

    /** The structure item of issue 41: a write says whether it created the item, so no one reads the log back. */
    @Test
    void anUpsertSaysWhetherItCreatedOrReplacedTheItem() {
        Upserted created = store.upsert(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}"
                .getBytes(StandardCharsets.UTF_8), Precondition.NONE);
        Upserted replaced = store.upsert(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}"
                .getBytes(StandardCharsets.UTF_8), Precondition.ifMatch(created.item().etag()));
        store.deleteItem(ORDERS, PartitionKey.of("c1"), "o1", Precondition.NONE);
        Upserted again = store.upsert(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":3}"
                .getBytes(StandardCharsets.UTF_8), Precondition.NONE);

        assertThat(created.created()).as("the first upsert").isTrue();
        assertThat(created.httpStatus()).isEqualTo(201);
        assertThat(replaced.created()).as("the second upsert").isFalse();
        assertThat(replaced.httpStatus()).isEqualTo(200);
        assertThat(replaced.item().tree().get("v").asInt()).isEqualTo(2);
        assertThat(again.created()).as("an upsert after a delete").isTrue();
    }

    /**
     * The structure item of issue 41: a write checks the partition key it states (over HTTP, its header) against the
     * document as the store reads it for the write, so the body is parsed once.
     */
    @Test
    void aWriteWhoseDocumentHasAnotherPartitionKeyThanTheStatedOneIsRefusedAndChangesNothing() {
        byte[] document = "{\"id\":\"o1\",\"customerId\":\"c1\"}".getBytes(StandardCharsets.UTF_8);
        String refusal = "Cannot write item to container orders: the document's partition key [\"c1\"] (at "
                + "/customerId) differs from the stated partition key [\"c2\"]";
        assertUnchanged(() -> store.createItem(ORDERS, document, Optional.of(PartitionKey.of("c2"))), 400, refusal);
        assertUnchanged(() -> store.upsert(ORDERS, document, Precondition.NONE, Optional.of(PartitionKey.of("c2"))),
                400, refusal);

        assertThat(store.createItem(ORDERS, document, Optional.of(PartitionKey.of("c1"))).id()).isEqualTo("o1");
        assertThat(store.upsert(ORDERS, document, Precondition.NONE, Optional.of(PartitionKey.of("c1"))).created())
                .as("an upsert of the item just created").isFalse();
    }

    @Test
    void replaceNeedsAnExistingItem() {
        assertUnchanged(() -> store.replaceItem(ORDERS, PartitionKey.of("c1"), "o1",
                        "{\"id\":\"o1\",\"customerId\":\"c1\"}"), 404,
                "Cannot replace item 'o1' in container orders with partition key [\"c1\"]: it does not exist");
    }

    @Test
    void replaceWithAStaleEtagFailsAndChangesNothing() {
        Item first = store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");
        Item second = store.replaceItem(ORDERS, PartitionKey.of("c1"), "o1",
                "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}".getBytes(StandardCharsets.UTF_8),
                Precondition.ifMatch(first.etag()));

        assertUnchanged(() -> store.replaceItem(ORDERS, PartitionKey.of("c1"), "o1",
                        "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":3}".getBytes(StandardCharsets.UTF_8),
                        Precondition.ifMatch(first.etag())), 412,
                "Cannot write item 'o1' in container orders: If-Match failed, its _etag is " + second.etag()
                        + ", not " + first.etag());
        assertUnchanged(() -> store.deleteItem(ORDERS, PartitionKey.of("c1"), "o1", Precondition.ifMatch(first.etag())),
                412, "If-Match failed");
        assertUnchanged(() -> store.upsertItem(ORDERS,
                        "{\"id\":\"o1\",\"customerId\":\"c1\"}".getBytes(StandardCharsets.UTF_8),
                        Precondition.ifMatch(first.etag())), 412, "If-Match failed");
        assertThat(store.readItem(ORDERS, PartitionKey.of("c1"), "o1").tree().get("v").asInt()).isEqualTo(2);
    }

    @Test
    void replaceCannotChangeIdOrPartitionKey() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        assertUnchanged(() -> store.replaceItem(ORDERS, PartitionKey.of("c1"), "o1",
                        "{\"id\":\"o1\",\"customerId\":\"c2\"}"), 400,
                "Cannot replace item 'o1' in container orders: the document's id 'o1' and partition key [\"c2\"] "
                        + "must be the item's ([\"c1\"])");
    }

    @Test
    void patchAppliesEveryOperationType() {
        store.createItem(ORDERS, """
                {"id":"o1","customerId":"c1","status":"new","count":1,"tags":["a","c"],"old":{"x":1},"gone":true}""");

        Item patched = store.patchItem(ORDERS, PartitionKey.of("c1"), "o1", List.of(
                PatchOperation.add("/tags/1", TextNode.valueOf("b")),
                PatchOperation.add("/tags/-", TextNode.valueOf("d")),
                PatchOperation.set("/shipping", TextNode.valueOf("express")),
                PatchOperation.replace("/status", TextNode.valueOf("paid")),
                PatchOperation.remove("/gone"),
                PatchOperation.incr("/count", IntNode.valueOf(2)),
                PatchOperation.incr("/retries", IntNode.valueOf(1)),
                PatchOperation.move("/old", "/archived")));

        var tree = patched.tree();
        assertThat(tree.get("tags").toString()).isEqualTo("[\"a\",\"b\",\"c\",\"d\"]");
        assertThat(tree.get("shipping").asText()).isEqualTo("express");
        assertThat(tree.get("status").asText()).isEqualTo("paid");
        assertThat(tree.has("gone")).isFalse();
        assertThat(tree.get("count").asInt()).isEqualTo(3);
        assertThat(tree.get("retries").asInt()).isEqualTo(1);
        assertThat(tree.has("old")).isFalse();
        assertThat(tree.get("archived").toString()).isEqualTo("{\"x\":1}");
        assertThat(StoreTesting.changeLog(store, ORDERS)).extracting(ChangeEvent::operation)
                .containsExactly(Operation.CREATE, Operation.REPLACE);
    }

    @Test
    void patchOfAMissingPathWithReplaceOrRemoveFailsAndChangesNothing() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"status\":\"new\"}");
        PartitionKey c1 = PartitionKey.of("c1");

        assertUnchanged(() -> store.patchItem(ORDERS, c1, "o1", List.of(
                        PatchOperation.set("/status", TextNode.valueOf("paid")),
                        PatchOperation.replace("/missing", TextNode.valueOf("x")))), 400,
                "Cannot patch item 'o1' in container orders: operation 2 (replace /missing) cannot apply: "
                        + "the path does not exist");
        assertUnchanged(() -> store.patchItem(ORDERS, c1, "o1", List.of(PatchOperation.remove("/missing"))), 400,
                "operation 1 (remove /missing) cannot apply: the path does not exist");
        assertUnchanged(() -> store.patchItem(ORDERS, c1, "o1", List.of(PatchOperation.set("/a/b", IntNode.valueOf(1)))),
                400, "the parent of the path does not exist");
        assertUnchanged(() -> store.patchItem(ORDERS, c1, "o1", List.of(PatchOperation.set("/id", TextNode.valueOf("x")))),
                400, "targets 'id', which cannot be patched");
        assertUnchanged(() -> store.patchItem(ORDERS, c1, "o1",
                List.of(PatchOperation.set("/customerId", TextNode.valueOf("x")))), 400, "targets the partition key");
        assertUnchanged(() -> store.patchItem(ORDERS, c1, "o1",
                List.of(PatchOperation.incr("/status", IntNode.valueOf(1)))), 400, "cannot increment string value");
        assertUnchanged(() -> store.patchItem(ORDERS, c1, "missing", List.of(PatchOperation.remove("/status"))), 404,
                "Cannot patch item 'missing' in container orders with partition key [\"c1\"]: it does not exist");
    }

    @Test
    void patchHasAtMostTenOperations() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        List<PatchOperation> eleven = new ArrayList<>();
        for (int index = 0; index < 11; index++) {
            eleven.add(PatchOperation.set("/p" + index, IntNode.valueOf(index)));
        }
        assertUnchanged(() -> store.patchItem(ORDERS, PartitionKey.of("c1"), "o1", eleven), 400,
                "Cannot patch item 'o1' in container orders: the patch has 11 operations, over the limit of 10");
    }

    @Test
    void deleteRemovesTheItemAndLogsThePreviousImage() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");
        store.deleteItem(ORDERS, PartitionKey.of("c1"), "o1");

        assertThat(store.findItem(ORDERS, PartitionKey.of("c1"), "o1")).isEmpty();
        ChangeEvent delete = StoreTesting.changeLog(store, ORDERS).get(1);
        assertThat(delete.operation()).isEqualTo(Operation.DELETE);
        assertThat(delete.ttlExpired()).isFalse();
        assertThat(delete.document()).isEmpty();
        assertThat(delete.previous().orElseThrow().get("v").asInt()).isEqualTo(1);
        assertUnchanged(() -> store.deleteItem(ORDERS, PartitionKey.of("c1"), "o1"), 404,
                "Cannot delete item 'o1' in container orders with partition key [\"c1\"]: it does not exist");
    }

    @Test
    void pointReadOfAMissingItemIsNotFound() {
        assertThat(store.findItem(ORDERS, PartitionKey.of("c1"), "o1")).isEmpty();
        assertError(() -> store.readItem(ORDERS, PartitionKey.of("c1"), "o1"), 404, "it does not exist");
    }

    @Test
    void itemWithoutThePartitionKeyPropertyIsUnderNone() {
        store.createItem(ORDERS, "{\"id\":\"o1\"}");
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":null}");

        assertThat(store.readItem(ORDERS, PartitionKey.NONE, "o1").json()).doesNotContain("customerId");
        assertThat(store.readItem(ORDERS, PartitionKey.nullValue(), "o1").json()).contains("\"customerId\":null");
        assertThat(store.readPartition(ORDERS, PartitionKey.NONE)).hasSize(1);
    }

    @Test
    void numericPartitionKeysEqualAsNumbers() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":10}");
        assertThat(store.findItem(ORDERS, PartitionKey.of(10), "o1")).isPresent();
        assertError(() -> store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":10.0}"), 409, "already exists");
    }

    @Test
    void readPartitionReturnsOnlyThatPartitionInIdOrder() {
        store.createItem(ORDERS, "{\"id\":\"b\",\"customerId\":\"c1\"}");
        store.createItem(ORDERS, "{\"id\":\"a\",\"customerId\":\"c1\"}");
        store.createItem(ORDERS, "{\"id\":\"a\",\"customerId\":\"c2\"}");

        assertThat(store.readPartition(ORDERS, PartitionKey.of("c1"))).extracting(Item::id).containsExactly("a", "b");
    }

    @Test
    void scanVisitsEveryItemOnceAcrossPages() {
        for (int index = 0; index < 1234; index++) {
            store.createItem(ORDERS, "{\"id\":\"o" + index + "\",\"customerId\":\"c" + (index % 97) + "\"}");
        }
        List<Item> items = StoreTesting.allItems(store, ORDERS);

        assertThat(items).hasSize(1234);
        assertThat(items).extracting(Item::id).doesNotHaveDuplicates();
    }

    @Test
    void scanPageReportsTheLogEndItCovers() {
        Item item = store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        int partition = logPartitionOf(item);

        ItemPage page = store.scanItems(ORDERS, partition, Optional.empty(), 10);

        assertThat(page.logEndLsn()).isEqualTo(item.lsn());
        assertError(() -> store.scanItems(ORDERS, partition, Optional.of("!!not-base64"), 10), 400, "is malformed");
    }

    // Transactional batch

    @Test
    void batchAppliesAllOperationsAtOnce() {
        store.createItem(ORDERS, "{\"id\":\"old\",\"customerId\":\"c1\"}");
        BatchResult result = store.executeBatch(ORDERS, PartitionKey.of("c1"), List.of(
                BatchOperation.create("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                BatchOperation.upsert("{\"id\":\"o2\",\"customerId\":\"c1\"}"),
                BatchOperation.replace("o1", "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}"),
                BatchOperation.patch("o2", List.of(PatchOperation.set("/v", IntNode.valueOf(3)))),
                BatchOperation.read("o1"),
                BatchOperation.delete("old")));

        assertThat(result.isSuccess()).isTrue();
        assertThat(result.status()).isEqualTo(200);
        assertThat(result.results()).extracting(BatchResult.OperationResult::status)
                .containsExactly(201, 201, 200, 200, 200, 204);
        assertThat(result.results().get(4).item().tree().get("v").asInt()).isEqualTo(2);
        assertThat(store.readPartition(ORDERS, PartitionKey.of("c1"))).extracting(Item::id).containsExactly("o1", "o2");
    }

    @Test
    void batchWithAFailingOperationAppliesNothing() {
        store.createItem(ORDERS, "{\"id\":\"taken\",\"customerId\":\"c1\"}");

        List<BatchOperation> operations = List.of(
                BatchOperation.create("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                BatchOperation.create("{\"id\":\"o2\",\"customerId\":\"c1\"}"),
                BatchOperation.create("{\"id\":\"taken\",\"customerId\":\"c1\"}"),
                BatchOperation.create("{\"id\":\"o4\",\"customerId\":\"c1\"}"));
        Snapshot before = snapshot();
        BatchResult result = store.executeBatch(ORDERS, PartitionKey.of("c1"), operations);

        assertThat(result.status()).isEqualTo(409);
        assertThat(result.results()).extracting(BatchResult.OperationResult::status).containsExactly(424, 424, 409, 424);
        assertThat(result.results().get(2).message()).contains("Cannot create item 'taken'");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void batchLimitsAreEnforced() {
        List<BatchOperation> tooMany = new ArrayList<>();
        for (int index = 0; index < 101; index++) {
            tooMany.add(BatchOperation.create("{\"id\":\"o" + index + "\",\"customerId\":\"c1\"}"));
        }
        assertUnchanged(() -> store.executeBatch(ORDERS, PartitionKey.of("c1"), tooMany), 400,
                "Cannot run batch on container orders: it has 101 operations; a batch has 1 to 100");

        String big = "x".repeat(900_000);
        List<BatchOperation> tooLarge = List.of(
                BatchOperation.create("{\"id\":\"a\",\"customerId\":\"c1\",\"p\":\"" + big + "\"}"),
                BatchOperation.create("{\"id\":\"b\",\"customerId\":\"c1\",\"p\":\"" + big + "\"}"),
                BatchOperation.create("{\"id\":\"c\",\"customerId\":\"c1\",\"p\":\"" + big + "\"}"));
        assertUnchanged(() -> store.executeBatch(ORDERS, PartitionKey.of("c1"), tooLarge), 413,
                "over the limit of 2097152 bytes (2 MB)");
    }

    @Test
    void batchMixingPartitionKeysIsRejected() {
        Snapshot before = snapshot();
        BatchResult result = store.executeBatch(ORDERS, PartitionKey.of("c1"), List.of(
                BatchOperation.create("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                BatchOperation.create("{\"id\":\"o2\",\"customerId\":\"c2\"}")));

        assertThat(result.results()).extracting(BatchResult.OperationResult::status).containsExactly(424, 400);
        assertThat(result.results().get(1).message()).contains(
                "Cannot write item 'o2' to container orders: it has partition key [\"c2\"] but the operation is for [\"c1\"]");
        assertThat(snapshot()).isEqualTo(before);
    }

    // Bulk

    @Test
    void bulkWriteStoresGoodDocumentsAndReportsBadOnes() {
        BulkResult result = store.bulkWrite(ORDERS, List.of(
                bytes("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                bytes("{\"id\":\"o2\",\"customerId\":"),
                bytes("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                bytes("{\"id\":\"o3\",\"customerId\":\"c2\"}")), BulkOptions.CREATE);

        assertThat(result.written()).isEqualTo(2);
        assertThat(result.failures()).extracting(BulkResult.Failure::index, BulkResult.Failure::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 400), org.assertj.core.groups.Tuple.tuple(2, 409));
        assertThat(StoreTesting.allItems(store, ORDERS)).extracting(Item::id).containsExactlyInAnyOrder("o1", "o3");
    }

    @Test
    void bulkWriteChecksItemsStoredBeforeIt() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");

        BulkResult created = store.bulkWrite(ORDERS, List.of(
                bytes("{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}"),
                bytes("{\"id\":\"o2\",\"customerId\":\"c1\",\"v\":1}")), BulkOptions.CREATE);
        BulkResult upserted = store.bulkWrite(ORDERS, List.of(
                bytes("{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":3}")), new BulkOptions(true, false));

        assertThat(created.written()).isEqualTo(1);
        assertThat(created.failures()).extracting(BulkResult.Failure::index, BulkResult.Failure::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 409));
        assertThat(upserted.written()).isEqualTo(1);
        List<ChangeEvent> log = StoreTesting.changeLog(store, ORDERS);
        assertThat(log).extracting(event -> event.operation() + " " + event.id())
                .containsExactly("CREATE o1", "CREATE o2", "REPLACE o1");
        assertThat(log.get(2).previous().orElseThrow().get("v").asInt()).isEqualTo(1);
        assertThat(store.readItem(ORDERS, PartitionKey.of("c1"), "o1").tree().get("v").asInt()).isEqualTo(3);
    }

    @Test
    void bulkWriteCanStopAtTheFirstFailure() {
        BulkResult result = store.bulkWrite(ORDERS, List.of(
                bytes("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                bytes("{\"id\":\"o1\",\"customerId\":\"c1\"}"),
                bytes("{\"id\":\"o3\",\"customerId\":\"c2\"}")), new BulkOptions(false, true));

        assertThat(result.written()).isEqualTo(1);
        assertThat(result.failures()).extracting(BulkResult.Failure::index).containsExactly(1);
        assertThat(StoreTesting.allItems(store, ORDERS)).extracting(Item::id).containsExactly("o1");
    }

    @Test
    void bulkOperationsSpanPartitionsEachWithItsOwnPreconditionAndResult() {
        Item first = store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");
        store.createItem(ORDERS, "{\"id\":\"o2\",\"customerId\":\"c2\",\"v\":1}");
        Item third = store.createItem(ORDERS, "{\"id\":\"o3\",\"customerId\":\"c3\",\"v\":1}");
        store.upsertItem(ORDERS, "{\"id\":\"o3\",\"customerId\":\"c3\",\"v\":2}");

        List<BatchResult.OperationResult> results = store.executeBulk(ORDERS, List.of(
                new BulkOperation(PartitionKey.of("c1"), BatchOperation
                        .replace("o1", "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}").withIfMatch(first.etag())),
                new BulkOperation(PartitionKey.of("c3"), BatchOperation
                        .replace("o3", "{\"id\":\"o3\",\"customerId\":\"c3\",\"v\":3}").withIfMatch(third.etag())),
                new BulkOperation(PartitionKey.of("c4"), BatchOperation.create("{\"id\":\"o4\",\"customerId\":\"c4\"}")),
                new BulkOperation(PartitionKey.of("c5"), BatchOperation.create("{\"id\":\"o5\",\"customerId\":\"c6\"}")),
                new BulkOperation(PartitionKey.of("c2"), BatchOperation.delete("o2")),
                new BulkOperation(PartitionKey.of("c1"), BatchOperation.read("o1"))));

        assertThat(results).extracting(BatchResult.OperationResult::status).containsExactly(200, 412, 201, 400, 204, 200);
        assertThat(results.get(1).message()).startsWith("Operation 2: ").contains("o3");
        assertThat(results.get(3).message()).startsWith("Operation 4: ")
                .contains("item 'o5' to container orders: it has partition key [\"c6\"] but the operation is for [\"c5\"]");
        // A later operation on an item sees the earlier ones: the read returns the replaced version.
        assertThat(results.get(5).item().tree().get("v").intValue()).isEqualTo(2);
        assertThat(StoreTesting.allItems(store, ORDERS)).extracting(item -> item.id() + "=" + item.tree().path("v").asText())
                .containsExactlyInAnyOrder("o1=2", "o3=2", "o4=");
        assertThat(StoreTesting.changeLog(store, ORDERS)).extracting(event -> event.operation() + " " + event.id())
                .contains("REPLACE o1", "CREATE o4", "DELETE o2").hasSize(7);
    }

    @Test
    void bulkOperationsOnAMissingContainerFail() {
        assertUnchanged(() -> store.executeBulk("missing", List.of(
                new BulkOperation(PartitionKey.of("c1"), BatchOperation.delete("o1")))), 404,
                "Container missing does not exist");
    }

    // The change log

    @Test
    void changeLogHasEveryWriteInLsnOrderWithoutGaps() {
        for (int index = 0; index < 200; index++) {
            String customer = "c" + (index % 13);
            store.upsertItem(ORDERS, "{\"id\":\"o" + (index % 50) + "\",\"customerId\":\"" + customer + "\",\"n\":" + index + "}");
        }
        int partitions = store.readContainer(ORDERS).logPartitions();
        int total = 0;
        for (int partition = 0; partition < partitions; partition++) {
            List<ChangeEvent> events = store.readChangeLog(ORDERS, partition, 0, 10_000).events();
            for (int index = 0; index < events.size(); index++) {
                assertThat(events.get(index).lsn()).isEqualTo(index + 1);
            }
            total += events.size();
        }
        assertThat(total).isEqualTo(200);
    }

    @Test
    void replaceEventCarriesThePreviousImage() {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":1}");
        store.upsertItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}");

        ChangeEvent replace = StoreTesting.changeLog(store, ORDERS).get(1);
        assertThat(replace.container()).isEqualTo(ORDERS);
        assertThat(replace.partitionKey().jsonText()).isEqualTo("\"c1\"");
        assertThat(replace.document().orElseThrow().get("v").asInt()).isEqualTo(2);
        assertThat(replace.previous().orElseThrow().get("v").asInt()).isEqualTo(1);
        assertThat(replace.ts()).isPositive();
    }

    @Test
    void readChangeLogFromAnLsnReturnsOnlyLaterEvents() {
        Item first = store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        store.upsertItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\",\"v\":2}");
        int partition = logPartitionOf(first);

        ChangeLogPage page = store.readChangeLog(ORDERS, partition, first.lsn(), 10);

        assertThat(page.events()).extracting(ChangeEvent::lsn).containsExactly(first.lsn() + 1);
        assertThat(page.logEndLsn()).isEqualTo(first.lsn() + 1);
        assertError(() -> store.readChangeLog(ORDERS, 99, 0, 10), 400, "Container orders has log partitions 0 to 3, not 99");
    }

    // Numbers

    @Test
    void numbersAreStoredExactlyAsWritten() {
        String document = "{\"id\":\"n\",\"customerId\":\"c1\",\"big\":18446744073709551616,\"beyondDouble\":1e400,"
                + "\"precise\":1.000000000000000005,\"tenth\":0.1,\"bigNegative\":-9223372036854775809,"
                + "\"twoTo53Plus1\":9007199254740993,\"tiny\":123e-10000}";
        Item item = store.createItem(ORDERS, document);

        String stored = store.readItem(ORDERS, PartitionKey.of("c1"), "n").json();
        for (String number : List.of("18446744073709551616", "1e400", "1.000000000000000005", "0.1",
                "-9223372036854775809", "9007199254740993", "123e-10000")) {
            assertThat(stored).contains(":" + number + ",");
        }
        assertThat(item.tree().get("twoTo53Plus1").longValue()).isEqualTo(9007199254740993L);
        assertThat(StoreTesting.changeLog(store, ORDERS).get(0).document().orElseThrow().get("precise").decimalValue())
                .isEqualByComparingTo("1.000000000000000005");
    }

    // Bad input: each is rejected with the status Cosmos DB gives and a message naming the rule

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> badDocuments() {
        String deep = "{\"id\":\"deep\",\"customerId\":\"c1\",\"a\":" + "[".repeat(127) + "]".repeat(127) + "}";
        return java.util.stream.Stream.of(
                arguments("invalid JSON", bytes("{\"id\":\"o1\",}"), 400, "the document is not valid JSON"),
                arguments("truncated JSON", bytes("{\"id\":\"o1\""), 400, "the document is not valid JSON"),
                arguments("NaN", bytes("{\"id\":\"o1\",\"x\":NaN}"), 400, "the document is not valid JSON"),
                arguments("comment after the document", bytes("{\"id\":\"o1\"}/**/"), 400, "not valid JSON"),
                arguments("two documents", bytes("{\"id\":\"o1\"}{\"id\":\"o2\"}"), 400,
                        "has more than one JSON value"),
                arguments("invalid UTF-8", new byte[] {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xff, '"', '}'}, 400,
                        "it is not valid UTF-8 (invalid byte sequence at byte offset 7)"),
                arguments("overlong UTF-8", new byte[] {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xc0, (byte) 0xaf, '"', '}'},
                        400, "it is not valid UTF-8"),
                arguments("UTF-8 encoded surrogate", new byte[] {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xed, (byte) 0xa0,
                        (byte) 0x80, '"', '}'}, 400, "it is not valid UTF-8"),
                arguments("byte order mark", bytes("\uFEFF{\"id\":\"o1\"}"), 400, "starts with a UTF-8 byte order mark"),
                arguments("lone surrogate escape", bytes("{\"id\":\"o1\",\"s\":\"\\uDFAA\"}"), 400,
                        "Cannot write item 'o1' to container orders at /s: the document has a string with an unpaired "
                                + "UTF-16 surrogate \\uDFAA"),
                arguments("array document", bytes("[{\"id\":\"o1\"}]"), 400,
                        "the document is not a JSON object but an array: a document is one JSON object"),
                arguments("number document", bytes("42"), 400, "the document is not a JSON object but a number"),
                arguments("empty body", bytes(""), 400, "the document is empty"),
                arguments("duplicate keys", bytes("{\"id\":\"o1\",\"a\":{\"b\":1,\"b\":2}}"), 400,
                        "Cannot write item 'o1' to container orders at /a/b: the document has the property name 'b' "
                                + "twice in one object"),
                arguments("missing id", bytes("{\"customerId\":\"c1\"}"), 400, "the document has no 'id'"),
                arguments("empty id", bytes("{\"id\":\"\"}"), 400, "the document has an empty id"),
                arguments("numeric id", bytes("{\"id\":7}"), 400, "the document has an id that is not a string"),
                arguments("object id", bytes("{\"id\":{\"$oid\":\"1\"}}"), 400, "has an id that is not a string"),
                arguments("long id", bytes("{\"id\":\"" + "x".repeat(1024) + "\"}"), 400,
                        "has an id of 1024 bytes, over the limit of 1023"),
                arguments("id with slash", bytes("{\"id\":\"a/b\"}"), 400,
                        "the document has the id 'a/b', which contains '/': an id must not contain / \\ ? or #"),
                arguments("id with backslash", bytes("{\"id\":\"a\\\\b\"}"), 400, "which contains '\\'"),
                arguments("id with question mark", bytes("{\"id\":\"a?b\"}"), 400, "which contains '?'"),
                arguments("id with hash", bytes("{\"id\":\"a#b\"}"), 400, "which contains '#'"),
                arguments("object partition key", bytes("{\"id\":\"o1\",\"customerId\":{\"a\":1}}"), 400,
                        "Cannot write item 'o1' to container orders at /customerId: the document has a partition key "
                                + "value that is an object: it must be a string, number, boolean or null"),
                arguments("array partition key", bytes("{\"id\":\"o1\",\"customerId\":[1]}"), 400,
                        "has a partition key value that is an array"),
                arguments("item over 2 MB", bytes("{\"id\":\"big\",\"p\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}"), 413,
                        "over the limit of 2097152 bytes (2 MB)"),
                arguments("nesting deeper than 128", bytes(deep.replace("\"a\":[", "\"a\":[[").replace("]}", "]]}")), 400,
                        "the document nests deeper than 128 levels"),
                arguments("ttl zero", bytes("{\"id\":\"o1\",\"ttl\":0}"), 400,
                        "has ttl 0: an item's ttl is -1 (never expire) or 1 to 2147483647 seconds"),
                arguments("ttl null", bytes("{\"id\":\"o1\",\"ttl\":null}"), 400, "has ttl null"),
                arguments("ttl fraction", bytes("{\"id\":\"o1\",\"ttl\":1.5}"), 400, "has ttl 1.5"));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("badDocuments")
    void badDocumentIsRejectedAndChangesNothing(String name, byte[] document, int status, String message) {
        store.createItem(ORDERS, "{\"id\":\"keep\",\"customerId\":\"c1\"}");

        assertUnchanged(() -> store.createItem(ORDERS, document), status, message);
        assertUnchanged(() -> store.upsertItem(ORDERS, document, Precondition.NONE), status, message);
    }

    @Test
    void deepestAllowedNestingIsAccepted() {
        String deepest = "{\"id\":\"deep\",\"customerId\":\"c1\",\"a\":" + "[".repeat(127) + "]".repeat(127) + "}";
        assertThat(store.createItem(ORDERS, deepest).id()).isEqualTo("deep");
    }

    @Test
    void everyMalformedSampleIsRejectedOrKeptExactly() throws IOException {
        int accepted = 0;
        for (Path file : malformedSamples()) {
            byte[] content = Files.readAllBytes(file);
            // Wrap each sample as a property value, so that the sample itself is what gets checked.
            byte[] document = concat(bytes("{\"id\":\"" + file.getFileName() + "\",\"v\":"), content, bytes("}"));
            try {
                Item item = store.createItem(ORDERS, document);
                accepted++;
                // Kept: the stored value parses to the same JSON as the sample.
                assertThat(item.tree().get("v")).as(file.getFileName().toString())
                        .isEqualTo(io.docmirror.store.StoreJson.mapper().readTree(content));
            }
            catch (StoreException e) {
                assertThat(e.httpStatus()).as(file.getFileName().toString()).isIn(400, 413);
                assertThat(e.getMessage()).startsWith("Cannot write");
            }
        }
        assertThat(accepted).isPositive();
    }

    /**
     * Every sample that {@code testdata/malformed/INDEX.tsv} lists, sorted by name ({@link TestData}): a missing
     * sample fails the test, naming the path, and never skips it.
     */
    private static List<Path> malformedSamples() throws IOException {
        Path index = TestData.file("malformed/INDEX.tsv");
        List<String> lines = Files.readAllLines(index, StandardCharsets.UTF_8);
        List<Path> samples = new ArrayList<>();
        // A header, then one sample a line: its file name, a tab, what it is.
        for (String line : lines.subList(1, lines.size())) {
            Path sample = index.resolveSibling(line.substring(0, line.indexOf('\t')));
            if (!Files.isRegularFile(sample)) {
                throw new IllegalStateException("Cannot find the malformed sample " + sample + ", which " + index
                        + " lists");
            }
            samples.add(sample);
        }
        samples.sort(null);
        return samples;
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static org.junit.jupiter.params.provider.Arguments arguments(Object... values) {
        return org.junit.jupiter.params.provider.Arguments.of(values);
    }

    // Helpers

    Snapshot snapshot() {
        List<String> items = new ArrayList<>();
        for (ContainerProperties container : store.listContainers()) {
            StoreTesting.allItems(store, container.id()).forEach(item -> items.add(container.id() + ":" + item.json()));
        }
        int events = 0;
        for (ContainerProperties container : store.listContainers()) {
            events += StoreTesting.changeLog(store, container.id()).size();
        }
        return new Snapshot(items, events);
    }

    record Snapshot(List<String> items, int changeLogEvents) {
    }

    /** The call fails with the status and a message containing the text, and the store is exactly as before. */
    void assertUnchanged(ThrowingCallable call, int status, String message) {
        Snapshot before = snapshot();
        assertError(call, status, message);
        assertThat(snapshot()).isEqualTo(before);
    }

    static void assertError(ThrowingCallable call, int status, String message) {
        assertThatThrownBy(call)
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((StoreException) e).httpStatus()).isEqualTo(status));
    }

    int logPartitionOf(Item item) {
        int partitions = store.readContainer(ORDERS).logPartitions();
        for (int partition = 0; partition < partitions; partition++) {
            if (store.readChangeLog(ORDERS, partition, item.lsn() - 1, 1).events().stream()
                    .anyMatch(event -> event.id().equals(item.id()))) {
                return partition;
            }
        }
        throw new AssertionError("no log partition has " + item.id());
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
