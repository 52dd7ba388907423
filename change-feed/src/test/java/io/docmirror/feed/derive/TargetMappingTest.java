package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.PartitionKey;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.docmirror.feed.derive.DerivationTesting.json;
import static io.docmirror.feed.derive.DerivationTesting.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TargetMappingTest {
    private final Derivation scenario = DerivationTesting.scenario();

    private TargetMapping target(String container) {
        return scenario.targets().stream().filter(target -> target.container().equals(container)).findFirst()
                .orElseThrow();
    }

    private static ObjectNode source(String json) {
        return (ObjectNode) json(json);
    }

    @Test
    void projectsRenamesAndFlattensTheCustomer() {
        List<TargetDocument> customers = target("Customers").derive(
                source(order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1")));

        assertThat(customers).hasSize(1);
        assertThat(customers.get(0).partitionKey()).isEqualTo(PartitionKey.of("customer-7"));
        assertThat(customers.get(0).document()).isEqualTo(json("""
                {"customerId": "customer-7", "firstName": "Ada", "lastName": "Lovelace",
                 "billingAddress_city": "Seattle", "billingAddress_state": "WA", "id": "customer-7"}"""));
    }

    @Test
    void keepsEverythingButTheDroppedFieldsAndTheStoresProperties() {
        ObjectNode order = source(order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1"));
        order.put("_etag", "\"abc\"").put("_ts", 1).put("ttl", 60);

        List<TargetDocument> orders = target("Orders").derive(order);

        assertThat(orders.get(0).document()).isEqualTo(json("""
                {"id": "order-1", "customerId": "customer-7", "orderDate": "2025-03-01", "status": "placed"}"""));
    }

    @Test
    void splitsLineItemsWithTheirParentAndPosition() {
        List<TargetDocument> items = target("Items").derive(
                source(order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1", "SKU-2")));

        assertThat(items).extracting(TargetDocument::id).containsExactly("order-1:0", "order-1:1");
        assertThat(items.get(1).document()).isEqualTo(json("""
                {"sku": "SKU-2", "price": 2, "orderId": "order-1", "customerId": "customer-7",
                 "orderDate": "2025-03-01", "line": 1, "id": "order-1:1"}"""));
    }

    @Test
    void anOrderWithoutItemsGivesNoItemDocuments() {
        ObjectNode order = source(order("order-1", "customer-7", "WA", "2025-03-01"));
        order.remove("items");

        assertThat(target("Items").derive(order)).isEmpty();
    }

    @Test
    void scalarElementsAreWrappedAsValue() {
        ObjectNode order = source(order("order-1", "customer-7", "WA", "2025-03-01"));
        order.putArray("items").add("SKU-9");

        assertThat(target("Items").derive(order).get(0).document().get("value").textValue()).isEqualTo("SKU-9");
    }

    @Test
    void aSplitPathThatIsNotAnArrayNamesThePathAndTheRule() {
        ObjectNode order = source(order("order-1", "customer-7", "WA", "2025-03-01"));
        order.put("items", "none");

        assertThatThrownBy(() -> target("Items").derive(order))
                .isInstanceOf(DerivationException.class)
                .hasMessage("Cannot derive a Items document: at /items, split needs an array, found string");
    }

    @Test
    void anIdPlaceholderWithoutAValueCannotFormAnId() {
        ObjectNode order = source(order("order-1", "customer-7", "WA", "2025-03-01", "SKU-1"));
        order.remove("customerId");

        assertThatThrownBy(() -> target("Customers").derive(order))
                .isInstanceOf(DerivationException.class)
                .hasMessage("Cannot derive a Customers document: at /customerId, the id template {customerId} needs "
                        + "a string or number there, found nothing");
    }

    @Test
    void aFlattenedNameThatIsTakenIsAnError() {
        ObjectNode order = source(order("order-1", "customer-7", "WA", "2025-03-01"));
        order.put("billing_city", "Austin").putObject("billing").put("city", "Boston");

        assertThatThrownBy(() -> target("Orders").derive(order))
                .isInstanceOf(DerivationException.class)
                .hasMessageContaining("flattened name billing_city is already taken by another field");
    }

    @Test
    void numbersFormIdsByTheirDecimalText() {
        ObjectNode document = source("{\"n\": 12, \"d\": 1.5E+3}");

        assertThat(IdTemplate.parse("{n}-{d}").render(document, "T")).isEqualTo("12-1500");
    }

    @Test
    void aTemplateWithoutPlaceholdersOrWithBadBracesIsRefused() {
        assertThatThrownBy(() -> IdTemplate.parse("constant")).hasMessageContaining("no {field} placeholder");
        assertThatThrownBy(() -> IdTemplate.parse("{a")).hasMessage("'{' without '}' at position 0");
        assertThatThrownBy(() -> IdTemplate.parse("a}{b}")).hasMessage("'}' without '{' at position 1");
        assertThatThrownBy(() -> IdTemplate.parse("x{}")).hasMessage("empty placeholder {} at position 1");
    }
}
