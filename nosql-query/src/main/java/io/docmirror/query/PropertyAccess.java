package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.List;

/**
 * A property of an object ({@code c.name}, {@code c["name"]}) or an element of an array ({@code c.tags[0]}):
 * undefined when the target has no such property or element, or is neither an object nor an array.
 */
record PropertyAccess(Expression target, Expression key) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        JsonNode value = target.evaluate(scope);
        JsonNode name = key.evaluate(scope);
        if (value == null || name == null) {
            return null;
        }
        if (value.isObject() && name.isTextual()) {
            return value.get(name.textValue());
        }
        if (value.isArray() && name.isNumber()) {
            BigDecimal index = DecimalArithmetic.valueOf(name);
            boolean whole = index.signum() == 0 || index.stripTrailingZeros().scale() <= 0;
            if (whole && index.signum() >= 0 && index.compareTo(BigDecimal.valueOf(value.size())) < 0) {
                return value.get(index.intValueExact());
            }
        }
        return null;
    }

    @Override
    public List<Expression> operands() {
        return List.of(target, key);
    }

    /** The name a projection gives this property when the query gives none: {@code c.a.b} is {@code b}. */
    String propertyName() {
        return key instanceof Literal literal && literal.value() != null && literal.value().isTextual()
                ? literal.value().textValue() : null;
    }
}
