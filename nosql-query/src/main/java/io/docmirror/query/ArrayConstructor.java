package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.util.List;

/** An array literal, {@code [c.a, 1]}: an element that is undefined is left out, as Cosmos DB does. */
record ArrayConstructor(List<Expression> elements) implements Expression {
    ArrayConstructor {
        elements = List.copyOf(elements);
    }

    @Override
    public JsonNode compute(Scope scope) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode(elements.size());
        for (Expression element : elements) {
            JsonNode value = element.evaluate(scope);
            if (value != null) {
                array.add(value);
            }
        }
        return array;
    }

    @Override
    public List<Expression> operands() {
        return elements;
    }
}
