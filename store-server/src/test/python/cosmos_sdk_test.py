"""The official Python SDK for Cosmos DB, version 3 as Debian packages it (python3-azure-cosmos), against
docmirror's store, unchanged: the store's endpoint and keys come from the environment, and the SDK trusts the
store's test certificate through its SSL configuration. Run by the store's PythonSdkTest, which checks what these
writes left in the store."""
import os
import unittest

import azure.cosmos.cosmos_client as cosmos_client
import azure.cosmos.documents as documents
import azure.cosmos.errors as errors

ENDPOINT = os.environ["COSMOS_ENDPOINT"]
KEY = os.environ["COSMOS_KEY"]
READ_ONLY_KEY = os.environ["COSMOS_READ_ONLY_KEY"]
CERTIFICATE = os.environ["COSMOS_CERTIFICATE"]
ORDERS = "dbs/pyshop/colls/orders"


def client(key=KEY):
    policy = documents.ConnectionPolicy()
    policy.SSLConfiguration = documents.SSLConfiguration()
    policy.SSLConfiguration.SSLCaCerts = CERTIFICATE
    return cosmos_client.CosmosClient(ENDPOINT, {"masterKey": key}, policy)


class CosmosSdkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = client()
        cls.client.CreateDatabase({"id": "pyshop"})
        cls.client.CreateContainer("dbs/pyshop", {
            "id": "orders", "partitionKey": {"paths": ["/customerId"], "kind": "Hash"}})

    def status_of(self, call):
        with self.assertRaises(errors.HTTPFailure) as failure:
            call()
        return failure.exception.status_code

    def test_creates_reads_replaces_and_deletes_an_item(self):
        created = self.client.CreateItem(ORDERS, {"id": "o1", "customerId": "c1", "total": 12.5})
        self.assertEqual(created["id"], "o1")
        self.assertTrue(created["_self"].endswith("/"), created["_self"])

        read = self.client.ReadItem(ORDERS + "/docs/o1", {"partitionKey": "c1"})
        self.assertEqual(read["total"], 12.5)
        self.assertEqual(read["_etag"], created["_etag"])

        read["total"] = 13
        replaced = self.client.ReplaceItem(ORDERS + "/docs/o1", read, {"partitionKey": "c1"})
        self.assertNotEqual(replaced["_etag"], created["_etag"])

        self.client.DeleteItem(ORDERS + "/docs/o1", {"partitionKey": "c1"})
        self.assertEqual(self.status_of(lambda: self.client.ReadItem(ORDERS + "/docs/o1", {"partitionKey": "c1"})),
                         404)

    def test_an_item_read_and_written_back_does_not_keep_the_links(self):
        self.client.UpsertItem(ORDERS, {"id": "o2", "customerId": "c1", "total": 1})
        read = self.client.ReadItem(ORDERS + "/docs/o2", {"partitionKey": "c1"})
        read["total"] = 3
        self.client.UpsertItem(ORDERS, read)
        self.assertEqual(self.client.ReadItem(ORDERS + "/docs/o2", {"partitionKey": "c1"})["total"], 3)

    def test_a_conflicting_create_is_409_and_a_stale_etag_412(self):
        created = self.client.CreateItem(ORDERS, {"id": "o3", "customerId": "c2", "total": 5})
        self.assertEqual(self.status_of(lambda: self.client.CreateItem(
            ORDERS, {"id": "o3", "customerId": "c2", "total": 6})), 409)

        self.client.ReplaceItem(ORDERS + "/docs/o3", {"id": "o3", "customerId": "c2", "total": 6},
                                {"partitionKey": "c2",
                                 "accessCondition": {"type": "IfMatch", "condition": created["_etag"]}})
        self.assertEqual(self.status_of(lambda: self.client.ReplaceItem(
            ORDERS + "/docs/o3", {"id": "o3", "customerId": "c2", "total": 7},
            {"partitionKey": "c2", "accessCondition": {"type": "IfMatch", "condition": created["_etag"]}})), 412)
        self.assertEqual(self.client.ReadItem(ORDERS + "/docs/o3", {"partitionKey": "c2"})["total"], 6)

    def test_queries_within_one_partition_and_across_partitions(self):
        for n in range(6):
            self.client.UpsertItem(ORDERS, {"id": "q%d" % n, "customerId": "qc%d" % (n % 3), "total": n * 10,
                                            "kind": "query"})
        in_one = list(self.client.QueryItems(ORDERS, {
            "query": "SELECT VALUE c.id FROM c WHERE c.kind = @kind ORDER BY c.total",
            "parameters": [{"name": "@kind", "value": "query"}]}, {"partitionKey": "qc1"}))
        self.assertEqual(in_one, ["q1", "q4"])

        across = list(self.client.QueryItems(
            ORDERS, "SELECT c.id FROM c WHERE c.kind = 'query' ORDER BY c.total DESC",
            {"enableCrossPartitionQuery": True, "maxItemCount": 2}))
        self.assertEqual([row["id"] for row in across], ["q5", "q4", "q3", "q2", "q1", "q0"])

        counted = list(self.client.QueryItems(ORDERS, "SELECT VALUE COUNT(1) FROM c WHERE c.kind = 'query'",
                                              {"enableCrossPartitionQuery": True}))
        self.assertEqual(counted, [6])

    def test_reads_all_items_and_the_change_feed_of_each_range(self):
        self.client.CreateContainer("dbs/pyshop", {
            "id": "events", "partitionKey": {"paths": ["/device"], "kind": "Hash"}})
        events = "dbs/pyshop/colls/events"
        for n in range(5):
            self.client.CreateItem(events, {"id": "e%d" % n, "device": "d%d" % n, "reading": n})
        self.assertEqual(sorted(item["id"] for item in self.client.ReadItems(events)),
                         ["e0", "e1", "e2", "e3", "e4"])

        seen = []
        for partition_key_range in self.client._ReadPartitionKeyRanges(events):
            seen.extend(item["id"] for item in self.client.QueryItemsChangeFeed(events, {
                "partitionKeyRangeId": partition_key_range["id"], "isStartFromBeginning": True}))
        self.assertEqual(sorted(seen), ["e0", "e1", "e2", "e3", "e4"])

    def test_lists_databases_and_deletes_one(self):
        self.client.CreateDatabase({"id": "pyscratch"})
        self.assertIn("pyscratch", [database["id"] for database in self.client.ReadDatabases()])
        self.client.DeleteDatabase("dbs/pyscratch")
        self.assertEqual(self.status_of(lambda: self.client.ReadDatabase("dbs/pyscratch")), 404)

    def test_a_wrong_key_is_401_and_the_read_only_key_cannot_write(self):
        wrong = client("d3JvbmcK" * 11)
        self.assertEqual(self.status_of(lambda: wrong.ReadDatabase("dbs/pyshop")), 401)

        reader = client(READ_ONLY_KEY)
        self.assertEqual(reader.ReadDatabase("dbs/pyshop")["id"], "pyshop")
        self.assertEqual(self.status_of(lambda: reader.CreateItem(ORDERS, {"id": "ro", "customerId": "c1"})), 403)


if __name__ == "__main__":
    unittest.main(verbosity=2)
