package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A page's budget of rows and time (issue 41, defect 3): a JOIN over a large parameter made 30 million rows for one
 * request with no end. A query that streams ends its page where the budget ran out, with a continuation that reads on;
 * one that must see every row is refused naming the budget; work stops once the client has left.
 */
class PageBudgetTest {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Test
    void aStreamedQueryEndsItsPageWhereTheBudgetRanOutAndReadsOnFromThere() {
        List<JsonNode> documents = documents(25);
        NoSqlQuery query = NoSqlQuery.parse("SELECT VALUE c.n FROM c WHERE c.n % 2 = 0");
        List<Integer> results = new ArrayList<>();
        List<Integer> pageSizes = new ArrayList<>();
        String continuation = null;
        do {
            QueryPage page = query.page(documents, document -> 0, continuation, 100, budgetOfRows(7));
            page.results().forEach(result -> results.add(result.asInt()));
            pageSizes.add(page.results().size());
            continuation = page.continuation().orElse(null);
        } while (continuation != null && pageSizes.size() < 100);
        System.out.println("results per page within 7 rows: " + pageSizes);
        assertThat(results).containsExactly(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24);
        assertThat(pageSizes).as("pages of at most 7 rows, so at most 4 results").allMatch(size -> size <= 4)
                .hasSizeGreaterThan(3);
    }

    @Test
    void aQueryThatMustSeeEveryRowIsRefusedOnceItSpendsTheBudget() {
        ArrayNode parameter = JSON.arrayNode();
        for (int index = 0; index < 100; index++) {
            parameter.add(index);
        }
        NoSqlQuery query = NoSqlQuery.parse("SELECT VALUE COUNT(1) FROM c JOIN a IN @p JOIN b IN @p",
                Map.of("@p", parameter));
        assertThat(query.execute(documents(3))).extracting(JsonNode::asInt).as("without a budget")
                .containsExactly(30_000);
        assertThatThrownBy(() -> query.page(documents(3), document -> 0, null, 100, budgetOfRows(10_000)))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.LIMIT_EXCEEDED))
                .hasMessageContaining("one page of it may make at most 10000 rows")
                .hasMessageContaining("narrow it with a partition key or a filter");
    }

    @Test
    void theTimeBudgetEndsAPageToo() {
        AtomicLong now = new AtomicLong();
        // Every look at the clock finds a second gone.
        PageBudget budget = new PageBudget(Long.MAX_VALUE, Duration.ofMillis(2_500),
                () -> now.addAndGet(Duration.ofSeconds(1).toNanos()), () -> false);
        QueryPage page = NoSqlQuery.parse("SELECT VALUE c.n FROM c").page(documents(10_000), document -> 0, null,
                100_000, budget);
        assertThat(page.continuation()).as("a page cut short by the clock reads on").isPresent();
        assertThat(page.results()).hasSizeLessThan(10_000);
    }

    @Test
    void workStopsOnceTheClientHasLeft() {
        AtomicLong rowsMade = new AtomicLong();
        PageBudget budget = new PageBudget(Long.MAX_VALUE, Duration.ofHours(1), System::nanoTime,
                () -> rowsMade.incrementAndGet() > 2);
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT VALUE COUNT(1) FROM c").page(documents(100_000),
                document -> 0, null, 100, budget))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.CANCELLED));
        assertThat(rowsMade.get()).as("looks at the client before it was found gone").isEqualTo(3);
    }

    private static PageBudget budgetOfRows(long rows) {
        return new PageBudget(rows, Duration.ofHours(1), System::nanoTime, () -> false);
    }

    private static List<JsonNode> documents(int count) {
        List<JsonNode> documents = new ArrayList<>();
        for (int index = 0; index < count; index++) {
            ObjectNode document = JSON.objectNode();
            document.put("id", "d" + index);
            document.put("n", index);
            documents.add(document);
        }
        return documents;
    }
}
