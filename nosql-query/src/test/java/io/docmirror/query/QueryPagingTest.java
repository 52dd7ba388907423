package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.docmirror.query.TestingOrders.ORDERS;
import static io.docmirror.query.TestingOrders.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading a query page by page gives exactly its results, whatever the page size and the query's shape. */
class QueryPagingTest {
    private static final List<String> QUERIES = List.of(
            "SELECT c.id, i.sku FROM c JOIN i IN c.items WHERE i.qty >= 1",
            "SELECT VALUE [c.id, i.sku, t] FROM c JOIN i IN c.items JOIN t IN c.tags",
            "SELECT TOP 7 VALUE c.id FROM c WHERE IS_NUMBER(c.total)",
            "SELECT VALUE c.id FROM c JOIN i IN c.items OFFSET 3 LIMIT 9",
            "SELECT VALUE c.id FROM c OFFSET 25 LIMIT 5",
            "SELECT c.id, c.total FROM c ORDER BY c.total DESC",
            "SELECT DISTINCT VALUE i.sku FROM c JOIN i IN c.items",
            "SELECT c.customer.city AS city, COUNT(1) AS n FROM c GROUP BY c.customer.city",
            "SELECT VALUE COUNT(1) FROM c",
            "SELECT 1 AS one");

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 100})
    void pagesTogetherAreTheResults(int pageSize) {
        for (String text : QUERIES) {
            NoSqlQuery query = NoSqlQuery.parse(text);
            List<JsonNode> paged = new ArrayList<>();
            String continuation = null;
            int pages = 0;
            do {
                QueryPage page = query.page(ORDERS, continuation, pageSize);
                assertThat(page.results()).as("%s, page %d", text, pages).hasSizeLessThanOrEqualTo(pageSize);
                paged.addAll(page.results());
                continuation = page.continuation().orElse(null);
                pages++;
            } while (continuation != null && pages < 1000);
            assertThat(text(paged)).as("%s in pages of %d", text, pageSize).isEqualTo(text(query.execute(ORDERS)));
        }
    }

    @Test
    void aPageThatIsNotTheLastSaysWhereTheNextStarts() {
        QueryPage first = NoSqlQuery.parse("SELECT c.id, i.sku FROM c JOIN i IN c.items").page(ORDERS, null, 2);
        // o1 has two items: the page ends after its second row, so the next starts at row 0 of document 1.
        assertThat(first.continuation()).contains("{\"documents\":1,\"rows\":0,\"given\":2}");
        QueryPage second = NoSqlQuery.parse("SELECT c.id, i.sku FROM c JOIN i IN c.items").page(ORDERS, null, 3);
        assertThat(second.continuation()).contains("{\"documents\":2,\"rows\":0,\"given\":3}");
    }

    @Test
    void aContinuationNoPageGaveOutIsRefused() {
        NoSqlQuery query = NoSqlQuery.parse("SELECT * FROM c");
        assertThatThrownBy(() -> query.page(ORDERS, "not json", 5))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.INVALID_CONTINUATION))
                .hasMessageStartingWith("Cannot continue the query: continuation not json is not JSON (");
        assertThatThrownBy(() -> query.page(ORDERS, "{\"documents\":-1,\"rows\":0,\"given\":0}", 5))
                .isInstanceOf(QueryException.class)
                .hasMessage("Cannot continue the query: continuation {\"documents\":-1,\"rows\":0,\"given\":0} is not "
                        + "one this query gave out");
    }
}
