package io.docmirror.query;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.docmirror.query.TestingOrders.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A continuation is hostile input: whatever a client sends, it is a token this query gave out, or it is refused with
 * INVALID_CONTINUATION (a 400), never an exception of another kind.
 */
class HostileContinuationTest {
    /** One query of each way a query runs, by the name of the token shape it gives out. */
    private static final Map<String, String> QUERIES = Map.of(
            "streamed", "SELECT * FROM c",
            "sorted", "SELECT VALUE c.id FROM c ORDER BY c.total",
            "sorted twice", "SELECT VALUE c.id FROM c ORDER BY c.status, c.total DESC",
            "grouped", "SELECT c.status, COUNT(1) AS n FROM c GROUP BY c.status",
            "distinct", "SELECT DISTINCT VALUE c.status FROM c");

    private static String tokenOf(String shape) {
        return NoSqlQuery.parse(QUERIES.get(shape)).page(ORDERS, null, 1).continuation().orElseThrow();
    }

    private static final List<String> MALFORMED = List.of("", " ", "not json", "null", "[]", "42", "\"given\"", "{}",
            "{\"given\":1} trailing", "{\"given\":1,\"given\":2}", "{\"given\":1,\"extra\":0}", "{\"given\":-1}",
            "{\"given\":1.5}", "{\"given\":1e3}", "{\"given\":\"1\"}", "{\"given\":null}",
            "{\"given\":99999999999999999999999}", "{\"documents\":0,\"rows\":0}",
            "{\"documents\":0,\"rows\":-1,\"given\":0}", "{\"documents\":true,\"rows\":0,\"given\":0}",
            "{\"orderByItems\":[],\"position\":[0,0,0],\"given\":1}",
            "{\"orderByItems\":{},\"position\":[0,0,0],\"given\":1}",
            "{\"orderByItems\":[1],\"position\":[0,0,0],\"given\":1}",
            "{\"orderByItems\":[{\"item\":1,\"more\":2}],\"position\":[0,0,0],\"given\":1}",
            "{\"orderByItems\":[{\"value\":1}],\"position\":[0,0,0],\"given\":1}",
            "{\"orderByItems\":[{\"item\":1}],\"position\":[0,0],\"given\":1}",
            "{\"orderByItems\":[{\"item\":1}],\"position\":[0,-1,0],\"given\":1}",
            "{\"orderByItems\":[{\"item\":1}],\"position\":[0,0,0.5],\"given\":1}",
            "{\"orderByItems\":[{\"item\":1}],\"position\":[\"0\",0,0],\"given\":1}",
            "{\"orderByItems\":[{\"item\":1}],\"position\":{},\"given\":1}",
            "{\"orderByItems\":[{\"item\":1}],\"position\":[0,0,0]}",
            "{\"orderByItems\":[{\"item\":1e-2147483648}],\"position\":[0,0,0],\"given\":1}",
            "{\"orderByItems\":[{\"item\":" + "[".repeat(200) + "]".repeat(200) + "}],\"position\":[0,0,0],\"given\":1}",
            "[".repeat(100_000));

    @Test
    void aMalformedTokenIsRefused() {
        for (String shape : QUERIES.keySet()) {
            NoSqlQuery query = NoSqlQuery.parse(QUERIES.get(shape));
            for (String token : MALFORMED) {
                assertRefused(query, token);
            }
        }
    }

    @Test
    void aTokenOfAnotherShapeIsRefused() {
        List<String> refusals = new ArrayList<>();
        for (String shape : QUERIES.keySet()) {
            NoSqlQuery query = NoSqlQuery.parse(QUERIES.get(shape));
            for (String other : QUERIES.keySet()) {
                boolean sameShape = other.equals(shape) || Map.of("grouped", "distinct", "distinct", "grouped")
                        .getOrDefault(shape, "").equals(other);
                if (!sameShape) {
                    assertRefused(query, tokenOf(other));
                    refusals.add(shape + " <- " + other);
                }
            }
        }
        assertThat(refusals).hasSize(18);
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT * FROM c").page(ORDERS, "{\"given\":1}", 5))
                .hasMessage("Cannot continue the query: continuation {\"given\":1} is not one this query gave out");
    }

    @Test
    void countsBeyondTheResultsGiveAnEmptyLastPage() {
        String most = Long.toString(Long.MAX_VALUE);
        Map<String, List<String>> tokens = Map.of(
                "streamed", List.of("{\"documents\":" + most + ",\"rows\":" + most + ",\"given\":0}",
                        "{\"documents\":0,\"rows\":0,\"given\":" + most + "}"),
                "sorted", List.of("{\"orderByItems\":[{\"item\":1}],\"position\":[" + most + ",0,0],\"given\":"
                        + most + "}"),
                "sorted twice", List.of("{\"orderByItems\":[{},{\"item\":1}],\"position\":[0,0,0],\"given\":"
                        + most + "}"),
                "grouped", List.of("{\"given\":" + most + "}"),
                "distinct", List.of("{\"given\":" + most + "}"));
        for (String shape : QUERIES.keySet()) {
            NoSqlQuery query = NoSqlQuery.parse(QUERIES.get(shape) + " OFFSET 3 LIMIT 2147483647");
            for (String token : tokens.get(shape)) {
                QueryPage page = query.page(ORDERS, token, 5);
                assertThat(page.results()).as("%s from %s", shape, token).isEmpty();
                assertThat(page.continuation()).as("%s from %s", shape, token).isEmpty();
            }
        }
    }

    private static void assertRefused(NoSqlQuery query, String token) {
        assertThatThrownBy(() -> query.page(ORDERS, token, 5))
                .as("%s from %s", query, token.length() > 80 ? token.substring(0, 80) : token)
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.INVALID_CONTINUATION))
                .hasMessageStartingWith("Cannot continue the query: continuation ");
    }
}
