package io.docmirror.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.json.ExactTreeDeserializer;
import io.docmirror.json.NumberFidelity;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the next page of a query starts: a token, a small JSON object, that a page gives out and the request for the
 * next page brings back. Each way a query runs has its shape:
 * <ul>
 *   <li>{@link ReadFrom}, for a query that streams (filters and projections, TOP, OFFSET LIMIT):
 *       {@code {"documents":3,"rows":1,"given":20}};</li>
 *   <li>{@link SortedAfter}, for ORDER BY: the sort values and position of the last result given,
 *       {@code {"orderByItems":[{"item":42},{}],"position":[0,7,0],"given":20}}, each value exactly as stored and
 *       {@code {}} for undefined, as the rows a plan's rewritten query gives;</li>
 *   <li>{@link SkipGiven}, for a query whose results are all computed before the first (DISTINCT, GROUP BY,
 *       aggregates): {@code {"given":20}}.</li>
 * </ul>
 * A token is hostile input: one that is not JSON, not of one of these shapes, or not of the shape the query gives
 * out, is refused with {@link QueryErrorCode#INVALID_CONTINUATION}.
 */
sealed interface QueryContinuation {
    /** How many results the pages before gave. */
    long given();

    /** The token's text. */
    String token();

    /**
     * A query that streams resumes after the rows it has read: {@code documents} documents wholly, then {@code rows}
     * rows of the next one (a JOIN makes several rows of one document).
     */
    record ReadFrom(long documents, long rows, long given) implements QueryContinuation {
        static final ReadFrom START = new ReadFrom(0, 0, 0);

        public ReadFrom {
            if (documents < 0 || rows < 0 || given < 0) {
                throw new IllegalArgumentException("negative position: " + documents + ", " + rows + ", " + given);
            }
        }

        @Override
        public String token() {
            return TokenJson.write(JsonNodeFactory.instance.objectNode().put("documents", documents)
                    .put("rows", rows).put("given", given));
        }
    }

    /**
     * An ORDER BY query resumes with the rows strictly after the last result given, in its {@link SortOrder}
     * (keyset paging): a page holds only the rows it gives, whichever page it is.
     */
    record SortedAfter(SortKey last, long given) implements QueryContinuation {
        public SortedAfter {
            if (given < 0) {
                throw new IllegalArgumentException("negative count of results given: " + given);
            }
        }

        @Override
        public String token() {
            ObjectNode token = JsonNodeFactory.instance.objectNode();
            ArrayNode items = token.putArray("orderByItems");
            for (JsonNode value : last.values()) {
                ObjectNode item = items.addObject();
                if (value != null) {
                    item.set("item", value);
                }
            }
            RowPosition position = last.position();
            token.putArray("position").add(position.tieBreak()).add(position.document()).add(position.row());
            return TokenJson.write(token.put("given", given));
        }
    }

    /** A query whose results are all computed before the first computes them again and skips those given. */
    record SkipGiven(long given) implements QueryContinuation {
        public SkipGiven {
            if (given < 0) {
                throw new IllegalArgumentException("negative count of results given: " + given);
            }
        }

        @Override
        public String token() {
            return TokenJson.write(JsonNodeFactory.instance.objectNode().put("given", given));
        }
    }

    /**
     * Reads a token, with its numbers exact (a sort value such as {@code 9007199254740993} or {@code 1e400} is never
     * a double).
     *
     * @throws QueryException (INVALID_CONTINUATION) when it is not a token of one of the shapes
     */
    static QueryContinuation parse(String token) {
        JsonNode node;
        try {
            node = TokenJson.read(token);
        } catch (JsonProcessingException e) {
            throw new QueryException(QueryErrorCode.INVALID_CONTINUATION, "Cannot continue the query: continuation "
                    + abbreviated(token) + " is not JSON (" + e.getOriginalMessage() + ")");
        }
        if (node instanceof ObjectNode object) {
            Set<String> names = new HashSet<>();
            object.fieldNames().forEachRemaining(names::add);
            if (names.equals(Set.of("documents", "rows", "given")) && isCount(object.get("documents"))
                    && isCount(object.get("rows")) && isCount(object.get("given"))) {
                return new ReadFrom(object.get("documents").longValue(), object.get("rows").longValue(),
                        object.get("given").longValue());
            }
            if (names.equals(Set.of("given")) && isCount(object.get("given"))) {
                return new SkipGiven(object.get("given").longValue());
            }
            if (names.equals(Set.of("orderByItems", "position", "given")) && isCount(object.get("given"))) {
                List<JsonNode> values;
                try {
                    values = sortValues(object.get("orderByItems"));
                } catch (QueryException numberOutOfRange) {
                    // A number no BigDecimal holds, which no page compares and so none gives out.
                    QueryException refusal = notGivenOut(token);
                    refusal.initCause(numberOutOfRange);
                    throw refusal;
                }
                RowPosition position = position(object.get("position"));
                if (values != null && position != null) {
                    return new SortedAfter(new SortKey(values, position), object.get("given").longValue());
                }
            }
        }
        throw notGivenOut(token);
    }

    /** The refusal of a token that no page of the query gave out. */
    static QueryException notGivenOut(String token) {
        return new QueryException(QueryErrorCode.INVALID_CONTINUATION, "Cannot continue the query: continuation "
                + abbreviated(token) + " is not one this query gave out");
    }

    /** The values of {@code [{"item": v}, {}]}, null for undefined; null when the node is not of that shape. */
    private static List<JsonNode> sortValues(JsonNode items) {
        if (!items.isArray() || items.isEmpty()) {
            return null;
        }
        List<JsonNode> values = new ArrayList<>();
        for (JsonNode item : items) {
            if (!item.isObject() || item.size() > 1 || item.size() == 1 && !item.has("item")) {
                return null;
            }
            values.add(item.has("item") ? exactValue(item.get("item")) : null);
        }
        return values;
    }

    /**
     * The value with every number held as its exact BigDecimal, parsed once here rather than at each of the many
     * comparisons a page makes with it.
     */
    private static JsonNode exactValue(JsonNode value) {
        if (value.isNumber()) {
            return DecimalNode.valueOf(DecimalArithmetic.valueOf(value));
        }
        if (value.isArray()) {
            ArrayNode array = JsonNodeFactory.instance.arrayNode(value.size());
            value.forEach(element -> array.add(exactValue(element)));
            return array;
        }
        if (value.isObject()) {
            ObjectNode object = JsonNodeFactory.instance.objectNode();
            value.fields().forEachRemaining(property -> object.set(property.getKey(), exactValue(property.getValue())));
            return object;
        }
        return value;
    }

    /** The position of {@code [tieBreak, document, row]}; null when the node is not of that shape. */
    private static RowPosition position(JsonNode position) {
        if (!position.isArray() || position.size() != 3 || !isLong(position.get(0)) || !isCount(position.get(1))
                || !isCount(position.get(2))) {
            return null;
        }
        return new RowPosition(position.get(0).longValue(), position.get(1).longValue(), position.get(2).longValue());
    }

    private static boolean isLong(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToLong();
    }

    private static boolean isCount(JsonNode node) {
        return isLong(node) && node.longValue() >= 0;
    }

    private static String abbreviated(String token) {
        return token.length() > 60 ? token.substring(0, 60) + "..." : token;
    }

    /**
     * How tokens are written, in ASCII (a token travels in an HTTP header, whose values are ASCII: the characters of
     * a sort value beyond ASCII are written as JSON escapes), and read: strictly, numbers exact whatever their length
     * (a sort value is a stored number).
     */
    final class TokenJson {
        /** A stored document nests at most 128 deep; a sort value sits three levels into the token. */
        private static final int MAX_NESTING_DEPTH = 128 + 3;
        /** A stored number may be as long as an item, which Cosmos DB limits to 2 MB. */
        private static final int MAX_NUMBER_LENGTH = 2 * 1024 * 1024;
        private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                        .streamReadConstraints(StreamReadConstraints.builder()
                                .maxNestingDepth(MAX_NESTING_DEPTH)
                                .maxNumberLength(MAX_NUMBER_LENGTH)
                                .build())
                        .build())
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
                .addModule(ExactTreeDeserializer.module(NumberFidelity.VALUE))
                .build();

        private static final ObjectWriter WRITER = MAPPER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);

        private TokenJson() {
        }

        static String write(ObjectNode token) {
            try {
                return WRITER.writeValueAsString(token);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("Cannot write a continuation of a query", e);
            }
        }

        static JsonNode read(String token) throws JsonProcessingException {
            return MAPPER.readTree(token);
        }
    }
}
