package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.json.NumberFidelity;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;

import static io.docmirror.query.TestingOrders.JSON;
import static io.docmirror.query.TestingOrders.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Aggregates, GROUP BY and DISTINCT over 200,000 documents made as the query reads them: the results are exact, and
 * the limits on what a query holds (groups, distinct results) refuse a query past them, naming the limit.
 */
class StreamedAggregatesTest {
    private static final int COUNT = 200_000;
    private static final int GROUPS = 7;
    private static final BigInteger BIG = new BigInteger("9007199254740993");

    /**
     * Document i: group {@code g<i mod 7>}; {@code n} = i, undefined for one document in a thousand; {@code big} =
     * 9007199254740993 + i (a double holds neither); {@code price} = i/100 exactly, but a string in document 3
     * (group g3); {@code tag} a string, but an object in document 5 (group g5).
     */
    private static JsonNode document(int index) {
        ObjectNode document = JSON.createObjectNode().put("id", "d" + index).put("g", "g" + index % GROUPS);
        if (index % 1000 != 999) {
            document.put("n", index);
        }
        document.put("big", BIG.add(BigInteger.valueOf(index)));
        if (index == 3) {
            document.put("price", "oops");
        } else {
            document.set("price", NumberFidelity.SPELLING.numberNode(BigDecimal.valueOf(index, 2).toPlainString()));
        }
        if (index == 5) {
            document.putObject("tag").put("a", 1);
        } else {
            document.put("tag", "t" + index % 13);
        }
        return document;
    }

    private static final GeneratedDocuments DOCUMENTS = new GeneratedDocuments(COUNT, StreamedAggregatesTest::document);

    /** What the aggregates of a set of documents are, worked out one document at a time as the test makes them. */
    private static final class Expected {
        long rows;
        long definedN;
        BigDecimal sumN = BigDecimal.ZERO;
        Integer minN;
        Integer maxN;
        BigDecimal sumBig = BigDecimal.ZERO;
        BigDecimal sumPrice = BigDecimal.ZERO;
        long prices;
        String minTag;
        String maxTag;
        boolean tagNotAString;

        void add(int index) {
            rows++;
            if (index % 1000 != 999) {
                definedN++;
                sumN = sumN.add(BigDecimal.valueOf(index));
                minN = minN == null ? index : Math.min(minN, index);
                maxN = maxN == null ? index : Math.max(maxN, index);
            }
            sumBig = sumBig.add(new BigDecimal(BIG.add(BigInteger.valueOf(index))));
            if (index == 3) {
                sumPrice = null;
            } else if (sumPrice != null) {
                sumPrice = sumPrice.add(BigDecimal.valueOf(index, 2));
                prices++;
            }
            if (index == 5) {
                tagNotAString = true;
            } else {
                String tag = "t" + index % 13;
                minTag = minTag == null || tag.compareTo(minTag) < 0 ? tag : minTag;
                maxTag = maxTag == null || tag.compareTo(maxTag) > 0 ? tag : maxTag;
            }
        }

        /** The average as the documentation has it: exact, or 34 significant digits when the quotient does not end. */
        static BigDecimal average(BigDecimal sum, long count) {
            try {
                return sum.divide(BigDecimal.valueOf(count));
            } catch (ArithmeticException nonTerminating) {
                return sum.divide(BigDecimal.valueOf(count), MathContext.DECIMAL128);
            }
        }

        /** A computed number as results spell it: whole ones as integers, others in their shortest exact decimal. */
        static String spelled(BigDecimal value) {
            BigDecimal stripped = value.stripTrailingZeros();
            return stripped.scale() <= 0 ? stripped.toBigIntegerExact().toString() : stripped.toString();
        }
    }

    @Test
    void aggregatesOverEveryDocumentAreExact() {
        Expected all = new Expected();
        for (int index = 0; index < COUNT; index++) {
            all.add(index);
        }
        assertThat(text(NoSqlQuery.parse("SELECT VALUE COUNT(1) FROM c").execute(DOCUMENTS))).isEqualTo("[200000]");
        assertThat(text(NoSqlQuery.parse("SELECT VALUE SUM(c.big) FROM c").execute(DOCUMENTS)))
                .isEqualTo("[" + Expected.spelled(all.sumBig) + "]");
        // The price of document 3 is a string, which makes SUM and AVG undefined; the tag of document 5 an object,
        // which makes MIN and MAX undefined: undefined properties are left out.
        String query = "SELECT COUNT(1) AS rows, COUNT(c.n) AS definedN, SUM(c.n) AS sumN, AVG(c.n) AS avgN, "
                + "MIN(c.n) AS minN, MAX(c.n) AS maxN, AVG(c.big) AS avgBig, SUM(c.price) AS sumPrice, "
                + "MIN(c.tag) AS minTag FROM c";
        assertThat(text(NoSqlQuery.parse(query).execute(DOCUMENTS))).isEqualTo("[{\"rows\":200000,\"definedN\":"
                + all.definedN + ",\"sumN\":" + Expected.spelled(all.sumN) + ",\"avgN\":"
                + Expected.spelled(Expected.average(all.sumN, all.definedN)) + ",\"minN\":0,\"maxN\":199998,"
                + "\"avgBig\":" + Expected.spelled(Expected.average(all.sumBig, all.rows)) + "}]");
        assertThat(all.definedN).isEqualTo(COUNT - COUNT / 1000);
    }

    @Test
    void aggregatesPerGroupAreExact() {
        List<Expected> groups = new ArrayList<>();
        for (int group = 0; group < GROUPS; group++) {
            groups.add(new Expected());
        }
        for (int index = 0; index < COUNT; index++) {
            groups.get(index % GROUPS).add(index);
        }
        StringBuilder expected = new StringBuilder("[");
        for (int group = 0; group < GROUPS; group++) {
            Expected of = groups.get(group);
            expected.append(group == 0 ? "" : ",").append("{\"g\":\"g").append(group).append("\",\"rows\":")
                    .append(of.rows).append(",\"sumBig\":").append(Expected.spelled(of.sumBig)).append(",\"avgN\":")
                    .append(Expected.spelled(Expected.average(of.sumN, of.definedN)));
            if (of.sumPrice != null) {
                expected.append(",\"avgPrice\":").append(Expected.spelled(Expected.average(of.sumPrice, of.prices)));
            }
            expected.append(",\"minN\":").append(of.minN);
            if (!of.tagNotAString) {
                expected.append(",\"maxTag\":\"").append(of.maxTag).append('"');
            }
            expected.append('}');
        }
        String query = "SELECT c.g, COUNT(1) AS rows, SUM(c.big) AS sumBig, AVG(c.n) AS avgN, AVG(c.price) AS avgPrice,"
                + " MIN(c.n) AS minN, MAX(c.tag) AS maxTag FROM c GROUP BY c.g";
        assertThat(text(NoSqlQuery.parse(query).execute(DOCUMENTS))).isEqualTo(expected.append(']').toString());

        // Two groups a page: each page folds every document again and gives the next two groups.
        List<JsonNode> paged = new ArrayList<>();
        String continuation = null;
        do {
            QueryPage page = NoSqlQuery.parse(query).page(DOCUMENTS, continuation, 2);
            paged.addAll(page.results());
            continuation = page.continuation().orElse(null);
        } while (continuation != null);
        assertThat(text(paged)).isEqualTo(expected.toString());
    }

    @Test
    void groupsUpToTheLimitAreHeldAndOneMoreIsRefused() {
        NoSqlQuery query = NoSqlQuery.parse("SELECT c.id, COUNT(1) AS n FROM c GROUP BY c.id");
        QueryPage first = query.page(new GeneratedDocuments(NoSqlQuery.MAX_GROUPS, StreamedAggregatesTest::document),
                null, 2);
        assertThat(text(first.results())).isEqualTo("[{\"id\":\"d0\",\"n\":1},{\"id\":\"d1\",\"n\":1}]");
        assertThat(first.continuation()).contains("{\"given\":2}");
        assertThatThrownBy(() -> query.page(
                new GeneratedDocuments(NoSqlQuery.MAX_GROUPS + 1, StreamedAggregatesTest::document), null, 2))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.LIMIT_EXCEEDED))
                .hasMessage("Cannot run the query: it makes more than 100000 groups, the most a query may hold; "
                        + "narrow it to fewer groups with a filter (WHERE) or to one partition key value");
    }

    @Test
    void distinctResultsUpToTheLimitAreHeldAndOneMoreIsRefused() {
        assertThat(NoSqlQuery.parse("SELECT DISTINCT VALUE c.g FROM c ORDER BY c.g DESC").execute(DOCUMENTS))
                .extracting(JsonNode::textValue).containsExactly("g6", "g5", "g4", "g3", "g2", "g1", "g0");
        assertThat(NoSqlQuery.parse("SELECT DISTINCT VALUE c.tag FROM c WHERE c.g = 'g5'").execute(DOCUMENTS))
                .extracting(JsonNode::toString).startsWith("{\"a\":1}", "\"t12\"", "\"t6\"").hasSize(14);
        NoSqlQuery distinctIds = NoSqlQuery.parse("SELECT DISTINCT VALUE c.id FROM c");
        assertThat(distinctIds.page(new GeneratedDocuments(NoSqlQuery.MAX_DISTINCT_RESULTS,
                StreamedAggregatesTest::document), null, 3).results()).extracting(JsonNode::textValue)
                .containsExactly("d0", "d1", "d2");
        assertThatThrownBy(() -> distinctIds.page(new GeneratedDocuments(NoSqlQuery.MAX_DISTINCT_RESULTS + 1,
                StreamedAggregatesTest::document), null, 3))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.LIMIT_EXCEEDED))
                .hasMessage("Cannot run the query: DISTINCT meets more than 100000 distinct results, the most a query "
                        + "may hold; narrow it with a filter (WHERE) or to one partition key value");
    }
}
