package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Objects;

/**
 * An object literal, {@code {"item": c.a}}, and also a select list, which builds an object of its aliases: a property
 * whose value is undefined is left out.
 */
record ObjectConstructor(List<Property> properties) implements Expression {
    /** One property of the object: its name and the expression of its value. */
    record Property(String name, Expression value) {
        Property {
            Objects.requireNonNull(name, "name is null");
            Objects.requireNonNull(value, "value is null");
        }
    }

    ObjectConstructor {
        properties = List.copyOf(properties);
    }

    @Override
    public JsonNode compute(Scope scope) {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        for (Property property : properties) {
            JsonNode value = property.value().evaluate(scope);
            if (value != null) {
                object.set(property.name(), value);
            }
        }
        return object;
    }

    @Override
    public List<Expression> operands() {
        return properties.stream().map(Property::value).toList();
    }
}
