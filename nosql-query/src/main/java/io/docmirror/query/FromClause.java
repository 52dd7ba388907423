package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

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

    /** Hands each row of the document to the consumer, in order. */
    void forEachRow(JsonNode document, Consumer<Row> consumer) {
        JsonNode value = input.evaluate(new Row(Map.of(inputName, document)));
        if (value == null) {
            return;
        }
        if (!iterates) {
            join(Map.of(alias, value), 0, consumer);
        } else if (value.isArray()) {
            for (JsonNode element : value) {
                join(Map.of(alias, element), 0, consumer);
            }
        }
    }

    private void join(Map<String, JsonNode> variables, int joinIndex, Consumer<Row> consumer) {
        if (joinIndex == joins.size()) {
            consumer.accept(new Row(variables));
            return;
        }
        Join join = joins.get(joinIndex);
        JsonNode collection = join.collection().evaluate(new Row(variables));
        if (collection == null || !collection.isArray()) {
            return;
        }
        for (JsonNode element : collection) {
            Map<String, JsonNode> joined = new HashMap<>(variables);
            joined.put(join.alias(), element);
            join(joined, joinIndex + 1, consumer);
        }
    }
}
