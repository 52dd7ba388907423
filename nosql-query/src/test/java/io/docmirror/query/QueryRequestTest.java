package io.docmirror.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static io.docmirror.query.TestingOrders.JSON;
import static io.docmirror.query.TestingOrders.ORDERS;
import static io.docmirror.query.TestingOrders.expected;
import static io.docmirror.query.TestingOrders.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Query request bodies as the SDKs send them, well-formed and not. */
class QueryRequestTest {
    private static JsonNode body(String json) throws JsonProcessingException {
        return JSON.readTree(json);
    }

    @Test
    void theQueryWithItsParameters() throws JsonProcessingException {
        NoSqlQuery query = NoSqlQuery.parseRequest(body("""
                {"query": "SELECT VALUE c.id FROM c WHERE c.total = @total OR c.customer.name = @name",
                 "parameters": [{"name": "@total", "value": 9007199254740993}, {"name": "@name", "value": "Zoe"}]}
                """));
        assertThat(text(query.execute(ORDERS))).isEqualTo(expected("[\"o3\", \"o20\"]"));
    }

    @Test
    void malformedBodiesAreRefused() {
        assertRefused("[]", "Cannot read the query request: the body has no \"query\" string");
        assertRefused("{\"query\": 5}", "Cannot read the query request: the body has no \"query\" string");
        assertRefused("{\"query\": \"SELECT * FROM c\", \"parameters\": {}}",
                "Cannot read the query request: \"parameters\" is not an array");
        assertRefused("{\"query\": \"SELECT * FROM c\", \"parameters\": [{\"name\": \"x\", \"value\": 1}]}",
                "Cannot read the query request: parameter 0 has no \"name\" starting with @");
        assertRefused("{\"query\": \"SELECT * FROM c\", \"parameters\": [{\"name\": \"@x\"}]}",
                "Cannot read the query request: parameter @x has no \"value\"");
        assertRefused("{\"query\": \"SELECT * FROM c\", \"parameters\": [{\"name\": \"@x\", \"value\": 1}, "
                + "{\"name\": \"@x\", \"value\": 2}]}", "Cannot read the query request: parameter @x is given twice");
    }

    private static void assertRefused(String body, String message) {
        assertThatThrownBy(() -> NoSqlQuery.parseRequest(body(body)))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.INVALID_PARAMETER))
                .hasMessage(message);
    }
}
