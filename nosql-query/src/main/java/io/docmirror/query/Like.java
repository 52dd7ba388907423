package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;

import java.util.List;

/**
 * {@code x LIKE pattern [ESCAPE 'c']} (see {@link LikePattern}), case-sensitive: undefined unless x and the pattern
 * are strings and the escape, when given, is one character.
 */
record Like(Expression value, Expression pattern, Expression escape, boolean negated) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        JsonNode actual = value.evaluate(scope);
        JsonNode likePattern = pattern.evaluate(scope);
        JsonNode escapeValue = escape == null ? null : escape.evaluate(scope);
        if (actual == null || !actual.isTextual() || likePattern == null || !likePattern.isTextual()) {
            return null;
        }
        if (escape != null && (escapeValue == null || !escapeValue.isTextual() || escapeValue.textValue().length() != 1)) {
            return null;
        }
        Character escapeCharacter = escapeValue == null ? null : escapeValue.textValue().charAt(0);
        boolean matches = LikePattern.compile(likePattern.textValue(), escapeCharacter).matches(actual.textValue());
        return BooleanNode.valueOf(matches != negated);
    }

    @Override
    public List<Expression> operands() {
        return escape == null ? List.of(value, pattern) : List.of(value, pattern, escape);
    }
}
