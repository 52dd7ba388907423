package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** {@code condition ? whenTrue : otherwise}: the second branch for anything but true, undefined included. */
record Conditional(Expression condition, Expression whenTrue, Expression otherwise) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        return BinaryOperation.isTrue(condition.evaluate(scope)) ? whenTrue.evaluate(scope) : otherwise.evaluate(scope);
    }

    @Override
    public List<Expression> operands() {
        return List.of(condition, whenTrue, otherwise);
    }
}
