package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.Item;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreJson;
import io.docmirror.store.StoreTesting;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The seed scenario's derivation (orders into Customers, Orders, Items) and small orders to feed it. */
final class DerivationTesting {
    static final String SOURCE = "CustomersOrdersAndItems";

    /** The configuration docs/configuration.md shows, as JSON (a config file may be YAML or JSON). */
    static final String SCENARIO_CONFIG = """
            {"orders": {
              "source": "CustomersOrdersAndItems",
              "targets": {
                "Customers": {
                  "partition-key": "/customerId",
                  "id": "{customerId}",
                  "fields": {"customerId": "/customerId", "firstName": "/customer/firstName",
                             "lastName": "/customer/lastName", "billingAddress": "/customer/billingAddress"},
                  "flatten": true,
                  "delete-with-source": false
                },
                "Orders": {
                  "partition-key": "/customerId",
                  "id": "{id}",
                  "drop": ["/items", "/customer"],
                  "flatten": true
                },
                "Items": {
                  "partition-key": "/customerId",
                  "split": "/items",
                  "parent-fields": {"orderId": "/id", "customerId": "/customerId", "orderDate": "/orderDate"},
                  "index-field": "line",
                  "id": "{orderId}:{line}",
                  "drop": ["/discounts"]
                }
              }
            }}
            """;

    private DerivationTesting() {
    }

    static JsonNode json(String text) {
        try {
            return StoreJson.mapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Derivation scenario() {
        return DerivationConfig.fromConfig(json(SCENARIO_CONFIG)).get(0);
    }

    /** An order of {@code customer} with one line item per sku, each costing its index + 1. */
    static String order(String id, String customer, String state, String date, String... skus) {
        ObjectNode order = StoreJson.mapper().createObjectNode();
        order.put("id", id);
        order.put("customerId", customer);
        order.put("orderDate", date);
        order.put("status", "placed");
        ObjectNode person = order.putObject("customer");
        person.put("firstName", "Ada");
        person.put("lastName", "Lovelace");
        person.putObject("billingAddress").put("city", "Seattle").put("state", state);
        for (int index = 0; index < skus.length; index++) {
            ObjectNode item = order.withArray("items").addObject();
            item.put("sku", skus[index]);
            item.put("price", index + 1);
            item.putArray("discounts").addObject().put("code", "SPRING");
        }
        order.withArray("items");
        return order.toString();
    }

    /** Every item of a container by id, without the store's per-write properties, for comparing states. */
    static Map<String, JsonNode> contents(StoreClient store, String container) {
        Map<String, JsonNode> contents = new TreeMap<>();
        for (Item item : StoreTesting.allItems(store, container)) {
            ObjectNode tree = item.tree();
            tree.remove(List.of("_rid", "_etag", "_ts", "_lsn"));
            contents.put(item.id(), tree);
        }
        return contents;
    }
}
