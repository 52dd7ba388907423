package io.docmirror.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Where the next page of a query starts. A query that streams (a filter and projection, with TOP or OFFSET LIMIT)
 * resumes after the rows it has read: {@code documents} documents wholly, then {@code rows} rows of the next one (a
 * JOIN makes several rows of one document), having given {@code given} results so far. A query that needs every row
 * before its first result (ORDER BY, DISTINCT, GROUP BY, aggregates) computes its results again and skips the
 * {@code given} ones. Either way the documents must come in the same order for every page, as a store's scan gives
 * them. The token is a small JSON object.
 */
record QueryContinuation(long documents, long rows, long given) {
    static final QueryContinuation START = new QueryContinuation(0, 0, 0);
    private static final ObjectMapper JSON = new ObjectMapper();

    QueryContinuation {
        if (documents < 0 || rows < 0 || given < 0) {
            throw new IllegalArgumentException("negative position: " + documents + ", " + rows + ", " + given);
        }
    }

    String token() {
        return "{\"documents\":" + documents + ",\"rows\":" + rows + ",\"given\":" + given + "}";
    }

    /**
     * @throws QueryException when the token is not one this class wrote
     */
    static QueryContinuation parse(String token) {
        try {
            JsonNode node = JSON.readTree(token);
            if (node instanceof ObjectNode object && object.size() == 3 && isCount(object.get("documents"))
                    && isCount(object.get("rows")) && isCount(object.get("given"))) {
                return new QueryContinuation(object.get("documents").longValue(), object.get("rows").longValue(),
                        object.get("given").longValue());
            }
        } catch (JsonProcessingException e) {
            throw new QueryException(QueryErrorCode.INVALID_CONTINUATION, "Cannot continue the query: continuation "
                    + abbreviated(token) + " is not JSON (" + e.getOriginalMessage() + ")");
        }
        throw new QueryException(QueryErrorCode.INVALID_CONTINUATION, "Cannot continue the query: continuation "
                + abbreviated(token) + " is not one this query gave out");
    }

    private static boolean isCount(JsonNode node) {
        return node != null && node.canConvertToLong() && node.isIntegralNumber() && node.longValue() >= 0;
    }

    private static String abbreviated(String token) {
        return token.length() > 60 ? token.substring(0, 60) + "..." : token;
    }
}
