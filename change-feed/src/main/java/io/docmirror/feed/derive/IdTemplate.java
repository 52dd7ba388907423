package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A target document's deterministic id: text with {@code {field}} placeholders, each replaced by a top-level field
 * of the produced document ({@code "{orderId}:{line}"}). A string field gives its text, a number its decimal text;
 * anything else, or a missing field, cannot form an id. Deterministic ids are what make the derivation idempotent: a
 * replay writes the same documents again instead of new ones.
 */
public final class IdTemplate {
    private final String template;
    /** Literal text and field names, alternating: literal, field, literal, ..., literal. */
    private final List<String> parts;

    private IdTemplate(String template, List<String> parts) {
        this.template = template;
        this.parts = List.copyOf(parts);
    }

    /** @throws IllegalArgumentException for an unbalanced brace or an empty placeholder */
    public static IdTemplate parse(String template) {
        requireNonNull(template, "template is null");
        List<String> parts = new ArrayList<>();
        int position = 0;
        while (true) {
            int open = template.indexOf('{', position);
            int close = template.indexOf('}', position);
            if (open < 0) {
                if (close >= 0) {
                    throw new IllegalArgumentException("'}' without '{' at position " + close);
                }
                parts.add(template.substring(position));
                break;
            }
            if (close < open) {
                throw new IllegalArgumentException(close < 0 ? "'{' without '}' at position " + open
                        : "'}' without '{' at position " + close);
            }
            if (close == open + 1) {
                throw new IllegalArgumentException("empty placeholder {} at position " + open);
            }
            parts.add(template.substring(position, open));
            parts.add(template.substring(open + 1, close));
            position = close + 1;
        }
        if (parts.size() == 1) {
            throw new IllegalArgumentException("it has no {field} placeholder, so every document would get the same id");
        }
        return new IdTemplate(template, parts);
    }

    /** @throws DerivationException when a placeholder's field is missing or not a string or number */
    public String render(ObjectNode document, String target) {
        StringBuilder id = new StringBuilder();
        for (int index = 0; index < parts.size(); index++) {
            if (index % 2 == 0) {
                id.append(parts.get(index));
                continue;
            }
            JsonNode value = document.get(parts.get(index));
            if (value == null || !(value.isTextual() || value.isNumber())) {
                throw new DerivationException(target, "/" + parts.get(index), "the id template " + template
                        + " needs a string or number there, found "
                        + (value == null ? "nothing" : value.getNodeType().name().toLowerCase()));
            }
            id.append(value.isTextual() ? value.textValue()
                    : value.isBigDecimal() ? value.decimalValue().toPlainString() : value.asText());
        }
        return id.toString();
    }

    @Override
    public String toString() {
        return template;
    }
}
