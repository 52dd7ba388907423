package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;

import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code x LIKE pattern [ESCAPE 'c']}: {@code %} matches any run of characters, {@code _} any one character,
 * {@code [abc]}, {@code [a-f]} and {@code [^abc]} one character of (or not of) a set, and the escape character makes
 * the character after it literal. Case-sensitive. Undefined unless x, the pattern and the escape are strings.
 */
record Like(Expression value, Expression pattern, Expression escape, boolean negated) implements Expression {
    @Override
    public JsonNode evaluate(Scope scope) {
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
        boolean matches = toRegex(likePattern.textValue(), escapeCharacter).matcher(actual.textValue()).matches();
        return BooleanNode.valueOf(matches != negated);
    }

    @Override
    public List<Expression> operands() {
        return escape == null ? List.of(value, pattern) : List.of(value, pattern, escape);
    }

    static Pattern toRegex(String like, Character escapeCharacter) {
        StringBuilder regex = new StringBuilder();
        for (int index = 0; index < like.length(); index++) {
            char character = like.charAt(index);
            if (escapeCharacter != null && character == escapeCharacter && index + 1 < like.length()) {
                index++;
                regex.append(Pattern.quote(String.valueOf(like.charAt(index))));
            } else if (character == '%') {
                regex.append(".*");
            } else if (character == '_') {
                regex.append('.');
            } else if (character == '[' && like.indexOf(']', index + 1) > index + 1) {
                int end = like.indexOf(']', index + 1);
                regex.append(characterClass(like.substring(index + 1, end)));
                index = end;
            } else {
                regex.append(Pattern.quote(String.valueOf(character)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** A LIKE set ({@code ^a-f}) as a regular expression class, every character but a range's dash taken literally. */
    private static String characterClass(String set) {
        StringBuilder regex = new StringBuilder("[");
        int start = 0;
        if (set.startsWith("^") && set.length() > 1) {
            regex.append('^');
            start = 1;
        }
        for (int index = start; index < set.length(); index++) {
            char character = set.charAt(index);
            boolean rangeDash = character == '-' && index > start && index + 1 < set.length();
            regex.append(rangeDash ? "-" : "\\x{" + Integer.toHexString(character) + "}");
        }
        return regex.append(']').toString();
    }
}
