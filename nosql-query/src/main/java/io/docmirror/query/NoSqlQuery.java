package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.query.grammar.NoSqlLexer;
import io.docmirror.query.grammar.NoSqlParser;
import org.antlr.v4.runtime.CharStream;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.Token;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * A query of the Cosmos DB for NoSQL language, parsed and checked, with the values of its parameters: immutable and
 * safe to run from several threads. Results share nodes with the documents and the parameters ({@code SELECT *}
 * gives the documents themselves): a caller that changes a result copies it first. See {@code docs/nosql-query.md} for the subset docmirror runs and how its
 * semantics follow Cosmos DB's (undefined, cross-type order, exact numbers).
 *
 * <pre>{@code
 * NoSqlQuery query = NoSqlQuery.parse("SELECT c.id FROM c WHERE c.total > @min", Map.of("@min", IntNode.valueOf(5)));
 * List<JsonNode> results = query.execute(documents);
 * }</pre>
 */
public final class NoSqlQuery {
    /** The longest query text, in characters: Cosmos DB's own limit (its maxSqlQueryInputLength). */
    public static final int MAX_TEXT_LENGTH = 262_144;
    /** How deep parentheses, brackets and braces may nest: deeper ones take a recursive parser too long. */
    public static final int MAX_NESTING_DEPTH = 128;
    /**
     * The most operators a query holds. The parser's cost grows faster than the query's length on long operator
     * chains ({@code 1+1+...+1} of 120 KB took seconds of CPU), and a chain nests the expression one level deeper per
     * operator, which every step after the parser walks recursively; so more are refused from the tokens, before any
     * parsing. Real queries hold a few dozen.
     */
    public static final int MAX_OPERATORS = 500;
    private static final Set<String> OPERATORS = Set.of("+", "-", "*", "/", "%", "||", "??", "?", "=", "!=", "<>", "<",
            "<=", ">", ">=", "AND", "OR", "NOT");
    /**
     * The most groups a query with GROUP BY holds while it runs, one per distinct GROUP BY value: past it the query is
     * refused (LIMIT_EXCEEDED). A group holds its GROUP BY values and one running value per aggregate, not its rows.
     */
    public static final int MAX_GROUPS = 100_000;
    /** The most distinct results a DISTINCT query holds while it runs: past it the query is refused (LIMIT_EXCEEDED). */
    public static final int MAX_DISTINCT_RESULTS = 100_000;
    /**
     * The largest OFFSET an ORDER BY query takes (LIMIT_EXCEEDED beyond): the rows it skips are held while they are
     * sorted. Pages after the first hold only their own rows, whatever OFFSET.
     */
    public static final int MAX_SORTED_OFFSET = 10_000;
    /**
     * The longest continuation a page gives out, in characters: an ORDER BY page's carries its last row's sort values,
     * and a client sends it back in a header (the store takes 32 KB of headers in all), so a page whose token would
     * be longer is refused rather than given a token no request can carry.
     */
    public static final int MAX_CONTINUATION_LENGTH = 16_384;

    private final String text;
    private final QueryModel model;

    private NoSqlQuery(String text, QueryModel model) {
        this.text = text;
        this.model = model;
    }

    /**
     * Parses a query.
     *
     * @param parameters the parameters' values by name, {@code @} included ({@code "@min"}), as the SDKs send them
     * @throws QueryException (code SYNTAX_ERROR, NOT_SUPPORTED, INVALID_QUERY or INVALID_PARAMETER) naming the fault
     *     and its line and column
     */
    public static NoSqlQuery parse(String text, Map<String, JsonNode> parameters) {
        Objects.requireNonNull(text, "text is null");
        Objects.requireNonNull(parameters, "parameters is null");
        if (text.length() > MAX_TEXT_LENGTH) {
            throw new QueryException(QueryErrorCode.INVALID_QUERY, "Cannot parse the query: it is " + text.length()
                    + " characters long, over the limit of " + MAX_TEXT_LENGTH);
        }
        CharStream characters = CharStreams.fromString(text);
        NoSqlLexer lexer = new NoSqlLexer(characters);
        lexer.removeErrorListeners();
        lexer.addErrorListener(new SyntaxErrorListener());
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        checkNesting(tokens.getTokens());
        checkOperators(tokens.getTokens());
        NoSqlParser parser = new NoSqlParser(tokens);
        parser.removeErrorListeners();
        parser.addErrorListener(new SyntaxErrorListener());
        try {
            NoSqlParser.QueryContext tree = parser.query();
            return new NoSqlQuery(text, new QueryBuilder(Map.copyOf(parameters), new QueryText(characters)).build(tree));
        } catch (StackOverflowError tooDeep) {
            // The parser descends once per nested parenthesis, NOT or sign: a hostile query must not kill the request.
            throw new QueryException(QueryErrorCode.SYNTAX_ERROR, "Cannot parse the query: it nests expressions too "
                    + "deeply", tooDeep);
        }
    }

    private static void checkOperators(List<Token> tokens) {
        int operators = 0;
        for (Token token : tokens) {
            if (OPERATORS.contains(token.getText().toUpperCase(Locale.ROOT)) && ++operators > MAX_OPERATORS) {
                throw new QueryException(QueryErrorCode.INVALID_QUERY, "Cannot parse the query: it holds more than "
                        + MAX_OPERATORS + " operators", token.getLine(), token.getCharPositionInLine() + 1);
            }
        }
    }

    private static void checkNesting(List<Token> tokens) {
        int depth = 0;
        for (Token token : tokens) {
            String text = token.getText();
            if (text.equals("(") || text.equals("[") || text.equals("{")) {
                depth++;
                if (depth > MAX_NESTING_DEPTH) {
                    throw new QueryException(QueryErrorCode.INVALID_QUERY, "Cannot parse the query: it nests "
                            + "parentheses, brackets and braces more than " + MAX_NESTING_DEPTH + " deep",
                            token.getLine(), token.getCharPositionInLine() + 1);
                }
            } else if (text.equals(")") || text.equals("]") || text.equals("}")) {
                depth = Math.max(0, depth - 1);
            }
        }
    }

    /**
     * Parses the body of a query request as the SDKs send it:
     * {@code {"query": "SELECT ...", "parameters": [{"name": "@min", "value": 5}]}}.
     *
     * @throws QueryException (INVALID_PARAMETER) when the body is not of that shape: no query text, parameters that
     *     are not named {@code @...}, a name given twice, a parameter without a value; and as {@link #parse}
     */
    public static NoSqlQuery parseRequest(JsonNode body) {
        Objects.requireNonNull(body, "body is null");
        JsonNode query = body.get("query");
        if (!body.isObject() || query == null || !query.isTextual()) {
            throw badRequest("the body has no \"query\" string");
        }
        JsonNode parameters = body.get("parameters");
        Map<String, JsonNode> values = new LinkedHashMap<>();
        if (parameters != null && !parameters.isNull()) {
            if (!parameters.isArray()) {
                throw badRequest("\"parameters\" is not an array");
            }
            for (int index = 0; index < parameters.size(); index++) {
                JsonNode parameter = parameters.get(index);
                JsonNode name = parameter.get("name");
                if (name == null || !name.isTextual() || !name.textValue().startsWith("@")) {
                    throw badRequest("parameter " + index + " has no \"name\" starting with @");
                }
                if (!parameter.has("value")) {
                    throw badRequest("parameter " + name.textValue() + " has no \"value\"");
                }
                if (values.put(name.textValue(), parameter.get("value")) != null) {
                    throw badRequest("parameter " + name.textValue() + " is given twice");
                }
            }
        }
        return parse(query.textValue(), values);
    }

    private static QueryException badRequest(String reason) {
        return new QueryException(QueryErrorCode.INVALID_PARAMETER, "Cannot read the query request: " + reason);
    }

    /** Parses a query without parameters. */
    public static NoSqlQuery parse(String text) {
        return parse(text, Map.of());
    }

    /** The query's text, as given. */
    public String text() {
        return text;
    }

    /**
     * All results of the query over the documents, in order.
     *
     * @throws QueryException (NUMBER_OUT_OF_RANGE) when a computation meets a number no BigDecimal holds
     */
    public List<JsonNode> execute(Iterable<? extends JsonNode> documents) {
        return page(documents, null, Integer.MAX_VALUE).results();
    }

    /**
     * One page of results: at most {@code maxItemCount} of them, from where the continuation points (from the start
     * when it is null). The documents must be all documents the query runs over, in the same order for every page;
     * they are read once per page, and held no longer than their rows take to run, except for the results the page
     * needs (see {@code docs/nosql-query.md}: a query holds at most {@link #MAX_GROUPS} groups,
     * {@link #MAX_DISTINCT_RESULTS} distinct results, and an ORDER BY the page's rows and its OFFSET, at most
     * {@link #MAX_SORTED_OFFSET}).
     *
     * @throws QueryException (INVALID_CONTINUATION) when the continuation is not one a page of this query gave out;
     *     (LIMIT_EXCEEDED) when the query would hold more than a limit allows
     */
    public QueryPage page(Iterable<? extends JsonNode> documents, String continuation, int maxItemCount) {
        return page(documents, QueryExecution.DOCUMENT_ORDER, continuation, maxItemCount);
    }

    /**
     * One page of results, as {@link #page(Iterable, String, int)}, where rows whose ORDER BY values tie come in the
     * order of their documents' tie-break numbers, then in the order given. A store that scans its documents in key
     * order gives each document's creation number, so that ties come in creation order (Cosmos DB's {@code _rid}
     * order) without sorting the documents first.
     *
     * @param tieBreak each document's tie-break number, the same for every page
     */
    public QueryPage page(Iterable<? extends JsonNode> documents, ToLongFunction<? super JsonNode> tieBreak,
            String continuation, int maxItemCount) {
        return page(documents, tieBreak, continuation, maxItemCount, PageBudget.unlimited());
    }

    /**
     * One page of results, as {@link #page(Iterable, ToLongFunction, String, int)}, within a budget of work: a query
     * that streams ends its page early, with a continuation, where the budget ran out.
     *
     * @throws QueryException (LIMIT_EXCEEDED) when a query that must see every row before it answers (ORDER BY,
     *     GROUP BY, an aggregate, DISTINCT) spends the budget; (CANCELLED) when the budget's client left
     */
    public QueryPage page(Iterable<? extends JsonNode> documents, ToLongFunction<? super JsonNode> tieBreak,
            String continuation, int maxItemCount, PageBudget budget) {
        Objects.requireNonNull(budget, "budget is null");
        Objects.requireNonNull(documents, "documents is null");
        Objects.requireNonNull(tieBreak, "tieBreak is null");
        if (maxItemCount < 1) {
            throw new IllegalArgumentException("maxItemCount must be at least 1: " + maxItemCount);
        }
        QueryContinuation from = continuation == null ? null : QueryContinuation.parse(continuation);
        return new QueryExecution(model).page(documents, tieBreak, from, maxItemCount, budget);
    }

    /**
     * The plan a gateway answers the SDKs' query-plan request with: what they merge across partition key ranges and
     * the query they send each range.
     *
     * @throws QueryException (NOT_SUPPORTED) for a query whose results the SDKs cannot merge from a rewritten query
     */
    public QueryPlan plan() {
        return QueryPlanner.plan(model);
    }

    /**
     * The value the query's filter requires of each document at a property path, if it requires one: for
     * {@code WHERE c.customerId = 'c1' AND c.total > 5} and the path {@code [customerId]}, {@code "c1"}. A gateway
     * runs such a query over the partition key ranges that hold that value only.
     *
     * @param path the property names from the document down
     */
    public Optional<JsonNode> requiredValue(List<String> path) {
        return RequiredValue.of(model, List.copyOf(path));
    }

    /**
     * Whether the query sorts its results (ORDER BY): rows whose sort values tie come in the order of the documents
     * given.
     */
    public boolean hasOrderBy() {
        return !model.orderBy().isEmpty();
    }

    @Override
    public String toString() {
        return text;
    }
}
