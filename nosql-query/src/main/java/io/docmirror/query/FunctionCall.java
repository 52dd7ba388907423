package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/** A call of a built-in scalar function, such as {@code STARTSWITH(c.name, "A", true)}. */
record FunctionCall(SystemFunction function, List<Expression> arguments) implements Expression {
    FunctionCall {
        arguments = List.copyOf(arguments);
    }

    @Override
    public JsonNode compute(Scope scope) {
        List<JsonNode> values = new ArrayList<>(arguments.size());
        for (Expression argument : arguments) {
            values.add(argument.evaluate(scope));
        }
        return function.apply(values);
    }

    @Override
    public List<Expression> operands() {
        return arguments;
    }
}
