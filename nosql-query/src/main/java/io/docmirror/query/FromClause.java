package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The rows a document gives: {@code FROM c} binds the document to {@code c}; {@code FROM c.items t} binds a value in
 * it; {@code FROM t IN c.items} binds each element of an array in it; each {@code JOIN t IN expression} then pairs
 * every row with each element of an array (a row whose expression is not an array gives no rows).
 *
 * @param alias the name the source is bound to in every row
 * @param inputName the name of the document while {@code input} is evaluated ({@code c} in {@code FROM t IN c.items})
 * @param input the value (or array, when {@code iterates}) that the alias binds, evaluated on the document
 */
record FromClause(String alias, String inputName, Expression input, boolean iterates, List<Join> joins) {
    /** {@code JOIN alias IN collection}. */
    record Join(String alias, Expression collection) {
        Join {
            Objects.requireNonNull(alias, "alias is null");
            Objects.requireNonNull(collection, "collection is null");
        }
    }

    FromClause {
        Objects.requireNonNull(alias, "alias is null");
        Objects.requireNonNull(inputName, "inputName is null");
        Objects.requireNonNull(input, "input is null");
        joins = List.copyOf(joins);
    }

    /** Whether the source binds the document itself ({@code FROM c}, {@code FROM root c}). */
    boolean bindsDocument() {
        return !iterates && input.equals(new Variable(inputName));
    }

    /**
     * Hands each row of the document to the consumer, in order, as long as it answers true: the rows of a JOIN are
     * made one at a time, never all held.
     *
     * @return false when the consumer stopped the rows
     */
    boolean forEachRow(JsonNode document, Predicate<Row> consumer) {
        JsonNode value = input.evaluate(new Row(Map.of(inputName, document)));
        if (value == null) {
            return true;
        }
        if (!iterates) {
            return join(Map.of(alias, value), 0, consumer);
        }
        if (value.isArray()) {
            for (JsonNode element : value) {
                if (!join(Map.of(alias, element), 0, consumer)) {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean join(Map<String, JsonNode> variables, int joinIndex, Predicate<Row> consumer) {
        if (joinIndex == joins.size()) {
            return consumer.test(new Row(variables));
        }
        Join join = joins.get(joinIndex);
        JsonNode collection = join.collection().evaluate(new Row(variables));
        if (collection == null || !collection.isArray()) {
            return true;
        }
        for (JsonNode element : collection) {
            Map<String, JsonNode> joined = new HashMap<>(variables);
            joined.put(join.alias(), element);
            if (!join(joined, joinIndex + 1, consumer)) {
                return false;
            }
        }
        return true;
    }
}
