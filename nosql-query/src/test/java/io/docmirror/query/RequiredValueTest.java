package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The partition key value a query's filter requires, by which a gateway narrows the ranges the query runs over. */
class RequiredValueTest {
    private static Optional<JsonNode> required(String query, List<String> path) {
        return NoSqlQuery.parse(query, Map.of("@c", TextNode.valueOf("c7"), "@n", IntNode.valueOf(3)))
                .requiredValue(path);
    }

    @Test
    void anEqualityAloneOrUnderAndRequiresItsValue() {
        List<String> customer = List.of("customerId");
        assertThat(required("SELECT * FROM c WHERE c.customerId = 'c1'", customer)).contains(TextNode.valueOf("c1"));
        assertThat(required("SELECT * FROM c WHERE c.total > 5 AND 'c1' = c[\"customerId\"]", customer))
                .contains(TextNode.valueOf("c1"));
        assertThat(required("SELECT * FROM c WHERE (c.a = 1 AND c.customerId = @c) AND c.b = 2", customer))
                .contains(TextNode.valueOf("c7"));
        assertThat(required("SELECT * FROM root r WHERE r.address.city = @n", List.of("address", "city")))
                .contains(IntNode.valueOf(3));
    }

    @Test
    void anythingElseRequiresNothing() {
        List<String> customer = List.of("customerId");
        assertThat(required("SELECT * FROM c", customer)).isEmpty();
        assertThat(required("SELECT * FROM c WHERE c.customerId = 'c1' OR c.total > 5", customer)).isEmpty();
        assertThat(required("SELECT * FROM c WHERE NOT (c.customerId = 'c1')", customer)).isEmpty();
        assertThat(required("SELECT * FROM c WHERE c.customerId != 'c1'", customer)).isEmpty();
        assertThat(required("SELECT * FROM c WHERE c.customerId = c.other", customer)).isEmpty();
        assertThat(required("SELECT * FROM c WHERE c.address.customerId = 'c1'", customer)).isEmpty();
        assertThat(required("SELECT * FROM c WHERE c.customerId = undefined", customer)).isEmpty();
        assertThat(required("SELECT VALUE t FROM t IN c.items WHERE t.customerId = 'c1'", customer)).isEmpty();
    }
}
