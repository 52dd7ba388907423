package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every construct docmirror refuses, with the error that names it and where it is in the query. */
class NoSqlQueryRefusalTest {
    private static void assertRefused(String query, QueryErrorCode code, String message) {
        assertRefused(query, Map.of(), code, message);
    }

    private static void assertRefused(String query, Map<String, JsonNode> parameters, QueryErrorCode code,
            String message) {
        assertThatThrownBy(() -> NoSqlQuery.parse(query, parameters))
                .isInstanceOfSatisfying(QueryException.class, error -> {
                    assertThat(error.code()).isEqualTo(code);
                    assertThat(code.httpStatus()).isEqualTo(400);
                })
                .hasMessage(message);
    }

    @Test
    void selectStarOverAJoin() {
        assertRefused("SELECT * FROM c JOIN t IN c.tags", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: SELECT * needs exactly one FROM source, and JOIN adds more at line 1, column 8");
    }

    @Test
    void selectStarWithoutFrom() {
        assertRefused("SELECT *", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: SELECT * needs a FROM clause at line 1, column 8");
    }

    @Test
    void subqueries() {
        assertRefused("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags)", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: EXISTS subqueries are not supported at line 1, column 23");
        assertRefused("SELECT VALUE (SELECT VALUE 1)", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: subqueries are not supported at line 1, column 14");
        assertRefused("SELECT ARRAY(SELECT VALUE t FROM t IN c.tags) AS a FROM c", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: ARRAY subqueries are not supported at line 1, column 8");
        assertRefused("SELECT * FROM (SELECT VALUE 1) x", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: a subquery in FROM is not supported at line 1, column 15");
        assertRefused("SELECT c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags) x", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: a subquery in JOIN is not supported at line 1, column 20");
    }

    @Test
    void functionsOutsideTheSubset() {
        assertRefused("SELECT VALUE udf.tax(c.total) FROM c", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: user-defined function udf.tax is not supported at line 1, column 14");
        assertRefused("SELECT VALUE c.id FROM c\nWHERE ST_DISTANCE(c.a, c.b) < 5", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: function ST_DISTANCE is not supported at line 2, column 7");
    }

    @Test
    void aFunctionWithTheWrongNumberOfArguments() {
        assertRefused("SELECT STARTSWITH(c.a) FROM c", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: STARTSWITH takes 2 to 3 arguments, not 1 at line 1, column 8");
        assertRefused("SELECT VALUE COUNT(c.a, c.b) FROM c", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: COUNT takes 1 argument, not 2 at line 1, column 14");
    }

    @Test
    void orderByAnExpression() {
        assertRefused("SELECT * FROM c ORDER BY c.a + 1", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: ORDER BY c.a + 1 is not a property path (such as c.name), which is all "
                        + "ORDER BY sorts on at line 1, column 26");
    }

    @Test
    void orderByOrDistinctWithAggregates() {
        assertRefused("SELECT COUNT(1) AS n FROM c ORDER BY c.a", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: ORDER BY together with GROUP BY or aggregates is not supported at line 1, column 29");
        assertRefused("SELECT DISTINCT c.a FROM c GROUP BY c.a", QueryErrorCode.NOT_SUPPORTED,
                "Cannot run the query: DISTINCT together with GROUP BY or aggregates is not supported at line 1, column 1");
    }

    @Test
    void anUngroupedPropertyBesideAnAggregate() {
        assertRefused("SELECT c.id, COUNT(1) AS n FROM c", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: c.id is neither an aggregate nor a GROUP BY expression at line 1, column 8");
        assertRefused("SELECT c.city, c.id FROM c GROUP BY c.city", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: c.id is neither an aggregate nor a GROUP BY expression at line 1, column 16");
        assertRefused("SELECT * FROM c GROUP BY c.city", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: SELECT * cannot be grouped; select the GROUP BY expressions at line 1, column 8");
    }

    @Test
    void aggregatesWhereNoneAreAllowed() {
        assertRefused("SELECT c.city FROM c WHERE COUNT(1) > 1", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: aggregates are not allowed in WHERE at line 1, column 28");
        assertRefused("SELECT VALUE SUM(MAX(c.a)) FROM c", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: an aggregate inside SUM is not allowed at line 1, column 18");
    }

    @Test
    void anIdentifierThatIsNoAlias() {
        assertRefused("SELECT x.id FROM c", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: identifier x is not a FROM or JOIN alias in scope at line 1, column 8");
    }

    @Test
    void duplicateNamesInTheSelectList() {
        assertRefused("SELECT c.id, c.customer.id FROM c", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: the select list names id twice; give one an alias with AS at line 1, column 14");
    }

    @Test
    void parameters() {
        assertRefused("SELECT * FROM c WHERE c.a = @missing", QueryErrorCode.INVALID_PARAMETER,
                "Cannot run the query: parameter @missing has no value at line 1, column 29");
        assertRefused("SELECT TOP @n * FROM c", Map.of("@n", TextNode.valueOf("five")), QueryErrorCode.INVALID_PARAMETER,
                "Cannot run the query: TOP takes a whole number from 0 to 2147483647, not \"five\" at line 1, column 12");
        assertRefused("SELECT * FROM c OFFSET 1.5 LIMIT 2", QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: OFFSET takes a whole number from 0 to 2147483647, not 1.5 at line 1, column 24");
    }

    @Test
    void syntaxErrorsNameTheirPosition() {
        assertRefused("SELECT *\nFROM c\nWHERE c.a = ", QueryErrorCode.SYNTAX_ERROR,
                "Cannot parse the query: mismatched input '<EOF>' expecting {'(', '[', '+', '-', '{', 'TRUE', 'FALSE', "
                        + "'NULL', 'UNDEFINED', 'ROOT', 'EXISTS', 'ARRAY', NUMBER, STRING, PARAMETER, IDENTIFIER} "
                        + "at line 3, column 13");
        assertRefused("SELECT * FROM c WHERE c.a = #", QueryErrorCode.SYNTAX_ERROR,
                "Cannot parse the query: token recognition error at: '#' at line 1, column 29");
        assertRefused("SELECT * FROM c LIMIT 5", QueryErrorCode.SYNTAX_ERROR,
                "Cannot parse the query: mismatched input 'LIMIT' expecting {<EOF>, '.', '[', 'AS', 'JOIN', 'WHERE', "
                        + "'GROUP', 'ORDER', 'OFFSET', IDENTIFIER} at line 1, column 17");
    }

    @Test
    void aQueryNestedTooDeeplyIsRefusedNotACrash() {
        String nested = "(".repeat(100_000) + "1" + ")".repeat(100_000);
        assertRefused("SELECT VALUE " + nested, QueryErrorCode.INVALID_QUERY,
                "Cannot parse the query: it nests parentheses, brackets and braces more than 128 deep at line 1, "
                        + "column 142");
        assertRefused("SELECT VALUE " + "{\"a\": ".repeat(129) + "1" + "}".repeat(129), QueryErrorCode.INVALID_QUERY,
                "Cannot parse the query: it nests parentheses, brackets and braces more than 128 deep at line 1, "
                        + "column 782");
        assertThat(NoSqlQuery.parse("SELECT VALUE " + "[".repeat(128) + "]".repeat(128)).execute(List.of()))
                .hasSize(1);
        assertRefused("SELECT VALUE " + "NOT ".repeat(100_000) + "true", QueryErrorCode.INVALID_QUERY,
                "Cannot parse the query: it is 400017 characters long, over the limit of 262144");
        assertRefused("SELECT VALUE " + "NOT ".repeat(60_000) + "true", QueryErrorCode.INVALID_QUERY,
                "Cannot parse the query: it holds more than 500 operators at line 1, column 2014");
    }

    /**
     * A long operator chain is refused from its tokens, before the parser, whose work on such chains grows faster
     * than their length (issue 41, defect 3: a 120 KB chain cost seconds of CPU before it was refused).
     */
    @Test
    void aLongOperatorChainIsRefusedBeforeItIsParsed() {
        assertRefused("SELECT VALUE " + "1+".repeat(60_000) + "1", QueryErrorCode.INVALID_QUERY,
                "Cannot parse the query: it holds more than 500 operators at line 1, column 1015");
        assertRefused("SELECT * FROM c WHERE " + "c.a = 1 OR ".repeat(1_000) + "c.a = 2", QueryErrorCode.INVALID_QUERY,
                "Cannot parse the query: it holds more than 500 operators at line 1, column 2770");
        assertThat(NoSqlQuery.parse("SELECT VALUE " + "1+".repeat(500) + "1").execute(List.of()))
                .extracting(JsonNode::asInt).containsExactly(501);
    }

    @Test
    void arithmeticThatWouldNeedAHugeNumberIsRefused() {
        NoSqlQuery query = NoSqlQuery.parse("SELECT VALUE 1e999999999 + 1");
        assertThatThrownBy(() -> query.execute(List.of()))
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.NUMBER_OUT_OF_RANGE))
                .hasMessage("Cannot add 1E+999999999 and 1: the exact result would need more than 10000 digits");
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT VALUE 1e999999999 % 7").execute(List.of()))
                .hasMessage("Cannot divide 1E+999999999 and 7: the exact result would need more than 10000 digits");
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT VALUE 1e-2147483648 + 1").execute(List.of()))
                .hasMessage("Cannot compute with the number 1e-2147483648: it is beyond what the query engine holds "
                        + "exactly (a BigDecimal)");
    }

    @Test
    void aLikePatternCannotMakeMatchingExplode() {
        // As a regular expression this pattern backtracks for as long as one cares to wait.
        String text = "a".repeat(5_000);
        String pattern = "%a".repeat(200) + "b";
        JsonNode document = TestingOrders.JSON.createObjectNode().put("text", text);
        assertThat(NoSqlQuery.parse("SELECT VALUE c.text LIKE @pattern FROM c",
                Map.of("@pattern", TextNode.valueOf(pattern))).execute(List.of(document)))
                .containsExactly(BooleanNode.FALSE);
    }
}
