// The official JavaScript SDK for Cosmos DB (@azure/cosmos) against docmirror's store, unchanged: the store's
// endpoint and keys come from the environment, and Node trusts the store's test certificate through
// NODE_EXTRA_CA_CERTS. Run by the store's JavaScriptSdkTest, which checks what these writes left in the store.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  BulkOperationType,
  ChangeFeedMode,
  ChangeFeedStartFrom,
  CosmosClient,
  PatchOperationType,
} from "@azure/cosmos";

const endpoint = requiredEnvironment("COSMOS_ENDPOINT");
const key = requiredEnvironment("COSMOS_KEY");
const readOnlyKey = requiredEnvironment("COSMOS_READ_ONLY_KEY");

const client = new CosmosClient({ endpoint, key });
let orders;

function requiredEnvironment(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

/** The error a call failed with, or a failed assertion when it did not fail. */
async function failureOf(call) {
  try {
    await call();
  } catch (error) {
    return error;
  }
  assert.fail("the call succeeded");
}

before(async () => {
  const { database } = await client.databases.createIfNotExists({ id: "shop" });
  ({ container: orders } = await database.containers.createIfNotExists({
    id: "orders",
    partitionKey: { paths: ["/customerId"] },
  }));
});

after(() => client.dispose());

test("creates, reads, replaces and deletes an item", async () => {
  const created = await orders.items.create({ id: "o1", customerId: "c1", total: 12.5, items: [{ sku: "A" }] });
  assert.equal(created.statusCode, 201);
  assert.ok(created.etag);

  const read = await orders.item("o1", "c1").read();
  assert.equal(read.statusCode, 200);
  assert.deepEqual(read.resource.items, [{ sku: "A" }]);
  assert.equal(read.resource._etag, created.etag);

  const replaced = await orders.item("o1", "c1").replace({ id: "o1", customerId: "c1", total: 13 });
  assert.equal(replaced.statusCode, 200);
  assert.notEqual(replaced.etag, created.etag);

  const deleted = await orders.item("o1", "c1").delete();
  assert.equal(deleted.statusCode, 204);
  const missing = await orders.item("o1", "c1").read();
  assert.equal(missing.statusCode, 404);
});

test("a create of an existing id is a conflict and an upsert replaces it", async () => {
  await orders.items.create({ id: "o2", customerId: "c1", total: 1 });
  const conflict = await failureOf(() => orders.items.create({ id: "o2", customerId: "c1", total: 2 }));
  assert.equal(conflict.code, 409);

  const upserted = await orders.items.upsert({ id: "o2", customerId: "c1", total: 3 });
  assert.equal(upserted.statusCode, 200);
  assert.equal(upserted.resource.total, 3);
});

test("a replace with a stale ETag fails with 412 and changes nothing", async () => {
  const { etag } = await orders.items.create({ id: "o3", customerId: "c2", total: 5 });
  await orders.item("o3", "c2").replace({ id: "o3", customerId: "c2", total: 6 },
    { accessCondition: { type: "IfMatch", condition: etag } });

  const stale = await failureOf(() => orders.item("o3", "c2").replace({ id: "o3", customerId: "c2", total: 7 },
    { accessCondition: { type: "IfMatch", condition: etag } }));
  assert.equal(stale.code, 412);
  assert.equal((await orders.item("o3", "c2").read()).resource.total, 6);
});

test("patches an item", async () => {
  await orders.items.create({ id: "o4", customerId: "c2", total: 10, status: "new" });
  const patched = await orders.item("o4", "c2").patch([
    { op: PatchOperationType.incr, path: "/total", value: 5 },
    { op: PatchOperationType.set, path: "/status", value: "paid" },
    { op: PatchOperationType.add, path: "/tags", value: ["gift"] },
  ]);
  assert.equal(patched.statusCode, 200);
  assert.equal(patched.resource.total, 15);
  assert.equal(patched.resource.status, "paid");
  assert.deepEqual(patched.resource.tags, ["gift"]);
});

test("a transactional batch commits all its operations or none", async () => {
  const committed = await orders.items.batch([
    { operationType: BulkOperationType.Create, resourceBody: { id: "b1", customerId: "c3", total: 1 } },
    { operationType: BulkOperationType.Upsert, resourceBody: { id: "b2", customerId: "c3", total: 2 } },
  ], "c3");
  assert.equal(committed.result.map((each) => each.statusCode).join(","), "201,201");

  const failed = await orders.items.batch([
    { operationType: BulkOperationType.Create, resourceBody: { id: "b3", customerId: "c3", total: 3 } },
    { operationType: BulkOperationType.Create, resourceBody: { id: "b1", customerId: "c3", total: 4 } },
  ], "c3");
  assert.equal(failed.result[1].statusCode, 409);
  assert.equal((await orders.item("b3", "c3").read()).statusCode, 404);
});

test("queries within one partition key value and across partitions, a page at a time", async () => {
  for (let n = 0; n < 6; n++) {
    await orders.items.upsert({ id: `q${n}`, customerId: `qc${n % 3}`, total: n * 10, kind: "query" });
  }
  const { resources: inOnePartition } = await orders.items.query({
    query: "SELECT VALUE c.id FROM c WHERE c.kind = @kind ORDER BY c.total",
    parameters: [{ name: "@kind", value: "query" }],
  }, { partitionKey: "qc1" }).fetchAll();
  assert.deepEqual(inOnePartition, ["q1", "q4"]);

  const pages = orders.items.query("SELECT c.id, c.total FROM c WHERE c.kind = 'query' ORDER BY c.total DESC",
    { maxItemCount: 2 });
  const ids = [];
  let pageCount = 0;
  while (pages.hasMoreResults()) {
    const page = await pages.fetchNext();
    if (page.resources.length > 0) {
      pageCount++;
      ids.push(...page.resources.map((each) => each.id));
    }
  }
  assert.deepEqual(ids, ["q5", "q4", "q3", "q2", "q1", "q0"]);
  assert.ok(pageCount >= 3, `expected pages of at most two results, saw ${pageCount}`);

  const { resources: counted } = await orders.items.query(
    "SELECT c.customerId, COUNT(1) AS orders, SUM(c.total) AS spent FROM c WHERE c.kind = 'query' "
      + "GROUP BY c.customerId").fetchAll();
  counted.sort((a, b) => a.customerId.localeCompare(b.customerId));
  assert.deepEqual(counted, [
    { customerId: "qc0", orders: 2, spent: 30 },
    { customerId: "qc1", orders: 2, spent: 50 },
    { customerId: "qc2", orders: 2, spent: 70 },
  ]);
});

test("reads all items of a container and runs bulk operations", async () => {
  const { container: stock } = await client.database("shop").containers.createIfNotExists({
    id: "stock",
    partitionKey: { paths: ["/sku"] },
  });
  const results = await stock.items.executeBulkOperations([
    { operationType: BulkOperationType.Create, partitionKey: "A", resourceBody: { id: "s1", sku: "A", count: 3 } },
    { operationType: BulkOperationType.Create, partitionKey: "B", resourceBody: { id: "s2", sku: "B", count: 0.1 } },
    { operationType: BulkOperationType.Upsert, partitionKey: "C", resourceBody: { id: "s3", sku: "C", count: 7 } },
    { operationType: BulkOperationType.Create, partitionKey: "A", resourceBody: { id: "s1", sku: "A", count: 4 } },
  ]);
  assert.deepEqual(results.map((each) => each.response?.statusCode ?? each.error?.code), [201, 201, 201, 409]);

  const { resources } = await stock.items.readAll().fetchAll();
  assert.deepEqual(resources.map((each) => `${each.id}=${each.count}`).sort(), ["s1=3", "s2=0.1", "s3=7"]);
});

test("queries with JOIN, DISTINCT and TOP", async () => {
  await orders.items.upsert({ id: "j1", customerId: "jc", kind: "join", items: [{ sku: "A", qty: 2 },
    { sku: "B", qty: 1 }] });
  await orders.items.upsert({ id: "j2", customerId: "jd", kind: "join", items: [{ sku: "A", qty: 5 }] });

  const { resources: lines } = await orders.items.query("SELECT c.id, i.sku, i.qty FROM c JOIN i IN c.items "
    + "WHERE c.kind = 'join' AND i.qty > 1").fetchAll();
  assert.deepEqual(lines.map((each) => `${each.id}:${each.sku}:${each.qty}`).sort(), ["j1:A:2", "j2:A:5"]);

  const { resources: skus } = await orders.items.query("SELECT DISTINCT VALUE i.sku FROM c JOIN i IN c.items "
    + "WHERE c.kind = 'join' ORDER BY i.sku").fetchAll();
  assert.deepEqual(skus, ["A", "B"]);

  const { resources: top } = await orders.items.query("SELECT TOP 1 VALUE c.id FROM c WHERE c.kind = 'join' "
    + "ORDER BY c.id DESC").fetchAll();
  assert.deepEqual(top, ["j2"]);
});

test("lists databases and deletes one with its containers", async () => {
  const { database: scratch } = await client.databases.createIfNotExists({ id: "scratch" });
  await scratch.containers.createIfNotExists({ id: "notes", partitionKey: { paths: ["/id"] } });
  const { resources: databases } = await client.databases.readAll().fetchAll();
  assert.ok(databases.some((each) => each.id === "scratch"), JSON.stringify(databases.map((each) => each.id)));

  await scratch.delete();
  const gone = await failureOf(() => scratch.read());
  assert.equal(gone.code, 404);
});

test("a query outside the supported language is refused with 400", async () => {
  const refused = await failureOf(() => orders.items.query("SELECT * FROM c WHERE ST_DISTANCE(c.a, c.b) < 1")
    .fetchAll());
  assert.equal(refused.code, 400);
});

test("reads the change feed from the beginning, and every version and delete from now", async () => {
  const { container: events } = await client.database("shop").containers.createIfNotExists({
    id: "events",
    partitionKey: { paths: ["/device"] },
  });
  await events.items.create({ id: "e1", device: "d1", reading: 1 });
  await events.items.create({ id: "e2", device: "d2", reading: 2 });

  const latest = events.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
  const seen = [];
  for (let page = await latest.readNext(); page.statusCode !== 304; page = await latest.readNext()) {
    seen.push(...page.result.map((each) => each.id));
  }
  assert.deepEqual(seen.sort(), ["e1", "e2"]);

  const allVersions = events.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Now(),
    changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
  });
  assert.equal((await allVersions.readNext()).statusCode, 304);
  await events.item("e1", "d1").replace({ id: "e1", device: "d1", reading: 10 });
  await events.item("e1", "d1").replace({ id: "e1", device: "d1", reading: 11 });
  await events.item("e2", "d2").delete();

  // Changes come in order within a feed range; the two devices may hash to different ranges.
  const changes = { d1: [], d2: [] };
  for (let page = await allVersions.readNext(); page.statusCode !== 304; page = await allVersions.readNext()) {
    for (const change of page.result) {
      const device = change.current?.device ?? change.previous?.device ?? change.metadata.partitionKey?.device;
      changes[device].push(`${change.metadata.operationType}:${change.current?.reading ?? change.metadata.id}`);
    }
  }
  assert.deepEqual(changes, { d1: ["replace:10", "replace:11"], d2: ["delete:e2"] });
});

test("a wrong key is refused with 401 and the read-only key cannot write", async () => {
  const wrongKey = new CosmosClient({ endpoint, key: Buffer.alloc(64, 7).toString("base64") });
  try {
    const refused = await failureOf(() => wrongKey.database("shop").container("orders").item("o2", "c1").read());
    assert.equal(refused.code, 401);
  } finally {
    wrongKey.dispose();
  }

  const reader = new CosmosClient({ endpoint, key: readOnlyKey });
  try {
    const readOnlyOrders = reader.database("shop").container("orders");
    assert.equal((await readOnlyOrders.item("o2", "c1").read()).resource.total, 3);
    const forbidden = await failureOf(() => readOnlyOrders.items.create({ id: "ro", customerId: "c1" }));
    assert.equal(forbidden.code, 403);
  } finally {
    reader.dispose();
  }
});
