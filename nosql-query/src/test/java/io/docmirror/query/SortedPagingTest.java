package io.docmirror.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;

import static io.docmirror.query.TestingOrders.JSON;
import static io.docmirror.query.TestingOrders.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ORDER BY read page by page: each page goes on from the exact sort values and position of the last result given, so
 * the pages together are the whole sorted result, whatever the page size, the directions, the ties, the types of the
 * values and the precision of the numbers.
 */
class SortedPagingTest {
    /**
     * Sort values of every type, as JSON, with numbers a double would merge (9007199254740992 and 9007199254740993;
     * 0.1 and the double nearest it, 0.1000000000000000055511151231257827) or lose (1e400); null for undefined.
     */
    private static final List<String> VALUES = Arrays.asList(null, "null", "false", "true", "-1e400", "-5",
            "0", "-0.0", "1", "1.0", "0.1", "0.1000000000000000055511151231257827", "9007199254740992",
            "9007199254740993", "9007199254740994", "1e400", "\"\"", "\"a\"", "\"b\"", "\"é\"", "\"😀\"", "[1]",
            "[1, 2]", "{\"a\": 1}", "{\"b\": 0}");

    /** 300 documents: each value of {@link #VALUES} a dozen times, {@code w} in 0..2, and 0 to 2 JOIN elements. */
    private static final List<JsonNode> DOCUMENTS = IntStream.range(0, 300).mapToObj(SortedPagingTest::document).toList();

    private static JsonNode document(int index) {
        String value = VALUES.get(index * 7 % VALUES.size());
        StringBuilder json = new StringBuilder("{\"id\": \"d" + index + "\", \"w\": " + index % 3);
        if (value != null) {
            json.append(", \"v\": ").append(value);
        }
        json.append(", \"items\": [");
        for (int item = 0; item < index % 3; item++) {
            json.append(item == 0 ? "" : ", ").append("{\"k\": ").append((index + item) % 4).append('}');
        }
        return parse(json.append("]}").toString());
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    /** Every result, each page read by a query parsed anew from the previous page's token. */
    private static List<JsonNode> paged(String text, Iterable<JsonNode> documents, ToLongFunction<JsonNode> tieBreak,
            int pageSize) {
        List<JsonNode> results = new ArrayList<>();
        String continuation = null;
        int pages = 0;
        do {
            QueryPage page = NoSqlQuery.parse(text).page(documents, tieBreak, continuation, pageSize);
            assertThat(page.results()).as("%s, page %d", text, pages).hasSizeLessThanOrEqualTo(pageSize);
            results.addAll(page.results());
            continuation = page.continuation().orElse(null);
            // A token travels in an HTTP header: "é" and "😀" are escaped.
            assertThat(continuation).as("token of %s", text).matches(token -> token == null
                    || token.chars().allMatch(character -> character < 128));
            assertThat(++pages).as("pages of %s", text).isLessThan(10_000);
        } while (continuation != null);
        return results;
    }

    private static List<JsonNode> paged(String text, Iterable<JsonNode> documents, int pageSize) {
        return paged(text, documents, document -> 0, pageSize);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 7, 64, 1000})
    void pagesTogetherAreTheSortedResults(int pageSize) {
        List<String> queries = List.of(
                "SELECT VALUE c.id FROM c ORDER BY c.v",
                "SELECT VALUE c.id FROM c ORDER BY c.v DESC",
                "SELECT c.id, c.v FROM c ORDER BY c.w DESC, c.v",
                "SELECT VALUE c.id FROM c ORDER BY c.w",
                "SELECT VALUE [c.id, t.k] FROM c JOIN t IN c.items ORDER BY t.k, c.v DESC",
                "SELECT VALUE c.v FROM c ORDER BY c.v DESC",
                "SELECT TOP 50 VALUE c.id FROM c WHERE c.w != 1 ORDER BY c.v DESC",
                "SELECT VALUE c.id FROM c ORDER BY c.v OFFSET 17 LIMIT 60",
                "SELECT VALUE c.id FROM c ORDER BY c.v OFFSET 290 LIMIT 60");
        for (String query : queries) {
            assertThat(text(paged(query, DOCUMENTS, pageSize))).as("%s in pages of %d", query, pageSize)
                    .isEqualTo(text(NoSqlQuery.parse(query).execute(DOCUMENTS)));
        }
    }

    @Test
    void theSortedResultsAreInTheOrderOfTheValuesThenOfTheDocuments() {
        Comparator<JsonNode> byValue = Comparator.comparing(document -> document.get("v"), JsonOrder::compare);
        Comparator<JsonNode> byW = Comparator.comparing(document -> document.get("w"), JsonOrder::compare);
        // List.sort is stable: documents whose values tie stay in the order given, whatever the direction.
        assertSortedBy("SELECT VALUE c.id FROM c ORDER BY c.v", byValue);
        assertSortedBy("SELECT VALUE c.id FROM c ORDER BY c.v DESC", byValue.reversed());
        assertSortedBy("SELECT VALUE c.id FROM c ORDER BY c.w DESC, c.v", byW.reversed().thenComparing(byValue));
    }

    private static void assertSortedBy(String query, Comparator<JsonNode> order) {
        List<JsonNode> sorted = new ArrayList<>(DOCUMENTS);
        sorted.sort(order);
        List<String> expected = sorted.stream().map(document -> document.get("id").textValue()).toList();
        for (int pageSize : new int[] {1, 5, 300}) {
            assertThat(paged(query, DOCUMENTS, pageSize)).as("%s in pages of %d", query, pageSize)
                    .extracting(JsonNode::textValue).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aTokenHoldsTheSortValuesExactly() {
        List<JsonNode> documents = List.of(parse("{\"id\": \"a\", \"v\": 9007199254740993}"),
                parse("{\"id\": \"b\", \"v\": 0.1}"), parse("{\"id\": \"c\", \"v\": 9007199254740992}"),
                parse("{\"id\": \"d\", \"v\": 0.1000000000000000055511151231257827}"),
                parse("{\"id\": \"e\", \"v\": 1e400}"), parse("{\"id\": \"f\", \"v\": 9007199254740994}"),
                parse("{\"id\": \"g\", \"v\": 1e400}"), parse("{\"id\": \"h\"}"), parse("{\"id\": \"i\", \"v\": null}"),
                parse("{\"id\": \"j\", \"v\": \"9007199254740993\"}"), parse("{\"id\": \"k\", \"v\": 1E+400}"));
        // Read as doubles, 9007199254740993 would be 9007199254740992, 0.1000000000000000055511151231257827 would be
        // 0.1 and 1e400 infinite: a page would start again at a result already given, or fail.
        assertThat(paged("SELECT VALUE c.id FROM c ORDER BY c.v", documents, 1)).extracting(JsonNode::textValue)
                .containsExactly("h", "i", "b", "d", "c", "a", "f", "e", "g", "k", "j");
        assertThat(paged("SELECT VALUE c.id FROM c ORDER BY c.v DESC", documents, 1)).extracting(JsonNode::textValue)
                .containsExactly("j", "e", "g", "k", "f", "a", "c", "d", "b", "i", "h");

        NoSqlQuery query = NoSqlQuery.parse("SELECT VALUE c.id FROM c ORDER BY c.v");
        QueryPage first = query.page(documents, null, 6);
        assertThat(first.continuation()).contains(
                "{\"orderByItems\":[{\"item\":9007199254740993}],\"position\":[0,0,0],\"given\":6}");
        QueryPage second = query.page(documents, first.continuation().get(), 2);
        assertThat(second.continuation()).contains("{\"orderByItems\":[{\"item\":1e400}],\"position\":[0,4,0],"
                + "\"given\":8}");
        assertThat(query.page(documents, "{\"orderByItems\":[{\"item\":0.1000000000000000055511151231257827}],"
                + "\"position\":[0,3,0],\"given\":3}", 3).results()).extracting(JsonNode::textValue)
                .containsExactly("c", "a", "f");
        assertThat(query.page(documents, "{\"orderByItems\":[{}],\"position\":[0,7,0],\"given\":1}", 2).results())
                .extracting(JsonNode::textValue).containsExactly("i", "b");
    }

    @Test
    void tiesComeInTheOrderOfTheTieBreakNumbersThenOfTheDocuments() {
        List<JsonNode> documents = List.of(parse("{\"id\": \"x\", \"v\": 1, \"created\": 30}"),
                parse("{\"id\": \"y\", \"v\": 1, \"created\": 10}"), parse("{\"id\": \"z\", \"v\": 1, \"created\": 20}"),
                parse("{\"id\": \"w\", \"v\": 0, \"created\": 99}"), parse("{\"id\": \"u\", \"v\": 1, \"created\": 10}"));
        ToLongFunction<JsonNode> created = document -> document.get("created").longValue();
        for (int pageSize : new int[] {1, 2, 5}) {
            assertThat(paged("SELECT VALUE c.id FROM c ORDER BY c.v", documents, created, pageSize))
                    .extracting(JsonNode::textValue).containsExactly("w", "y", "u", "z", "x");
            assertThat(paged("SELECT VALUE c.id FROM c ORDER BY c.v DESC", documents, created, pageSize))
                    .extracting(JsonNode::textValue).containsExactly("y", "u", "z", "x", "w");
            // Without ORDER BY there is nothing to break ties of: DISTINCT keeps the first met, in the order given.
            assertThat(paged("SELECT DISTINCT VALUE c.v FROM c", documents, created, pageSize))
                    .extracting(JsonNode::intValue).containsExactly(1, 0);
        }
    }

    /** 200,000 documents whose {@code n} is a permutation of 0..199,999: the document with n = k is made by idOf. */
    private static final int MANY = 200_000;
    private static final int STEP = 7919; // a prime that divides neither 2 nor 5, so i -> i * STEP mod MANY permutes
    private static final GeneratedDocuments MANY_DOCUMENTS = new GeneratedDocuments(MANY,
            index -> JSON.createObjectNode().put("id", "d" + index).put("n", (int) ((long) index * STEP % MANY)));

    private static String idOf(int n) {
        for (int index = 0; index < MANY; index++) {
            if ((long) index * STEP % MANY == n) {
                return "d" + index;
            }
        }
        throw new IllegalArgumentException("no document has n = " + n);
    }

    @Test
    void theFirstPagesOfManyDocumentsAreTheirTopRows() {
        NoSqlQuery query = NoSqlQuery.parse("SELECT VALUE c.id FROM c ORDER BY c.n DESC");
        List<String> expected = new ArrayList<>();
        for (int n = MANY - 1; n >= MANY - 12; n--) {
            expected.add(idOf(n));
        }
        List<String> given = new ArrayList<>();
        String continuation = null;
        for (int pageNumber = 0; pageNumber < 3; pageNumber++) {
            QueryPage page = query.page(MANY_DOCUMENTS, continuation, 4);
            page.results().forEach(result -> given.add(result.textValue()));
            continuation = page.continuation().orElseThrow();
        }
        assertThat(given).isEqualTo(expected);
        assertThat(NoSqlQuery.parse("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 10000 LIMIT 3").execute(MANY_DOCUMENTS))
                .extracting(JsonNode::intValue).containsExactly(10_000, 10_001, 10_002);
    }

    @Test
    void anOffsetOverTheLimitIsRefusedNamingIt() {
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 10001 LIMIT 3")
                .page(MANY_DOCUMENTS, null, 10))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.LIMIT_EXCEEDED))
                .hasMessage("Cannot run the query: OFFSET 10001 with ORDER BY is over the limit of 10000 (the rows "
                        + "skipped are held while they are sorted); read the results page by page with continuations, "
                        + "or filter on the sort values (WHERE) instead of skipping");
        // Without ORDER BY an OFFSET streams past the rows it skips, holding none.
        assertThat(NoSqlQuery.parse("SELECT VALUE c.n FROM c OFFSET 150000 LIMIT 2").execute(MANY_DOCUMENTS))
                .extracting(JsonNode::intValue)
                .containsExactly((int) (150_000L * STEP % MANY), (int) (150_001L * STEP % MANY));
    }
}
