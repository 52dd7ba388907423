package io.docmirror.config;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * An option's value as a YAML or JSON config file gives it, before it becomes the text a {@link ConfigSection}
 * reads. Its kind is checked here, where it is still known: a list, a mapping or null is never an option's value (as
 * text it would be empty, and an empty {@code store.http.primary-key} turns authentication off), and a number or a
 * boolean is not a string (YAML has read and respelt it: unquoted {@code 0123} is the number 83). Text that spells an
 * integer or a boolean is taken for one, as it is in a properties file.
 *
 * @param key the option's dotted key
 */
public record TreeValue(String key, JsonNode node) {
    public TreeValue {
        requireNonNull(key, "key is null");
        requireNonNull(node, "node is null");
    }

    /**
     * The value's text, for an option of this type.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason"
     */
    public String textFor(ConfigType type) {
        requireSingleValue(type.rule());
        boolean ofType = switch (type) {
            case STRING -> node.isTextual();
            case INTEGER -> node.isTextual() || node.isIntegralNumber();
            case BOOLEAN -> node.isTextual() || node.isBoolean();
            case MAPPING, LIST -> false;
        };
        if (!ofType && type == ConfigType.STRING) {
            // The kind, not the value: a string option may hold a key or a password.
            throw ConfigSection.invalid(key, "(" + kind() + ")", type.rule() + "; put it in quotes");
        }
        if (!ofType) {
            throw ConfigSection.invalid(key, node.asText(), type.rule());
        }
        String text = node.asText();
        type.check(key, text);
        return text;
    }

    private void requireSingleValue(String rule) {
        if (node.isNull()) {
            throw ConfigSection.invalid(key, "null", rule + " (an empty value in YAML is null; \"\" is the empty "
                    + "string)");
        }
        if (node.isContainerNode() || !node.isValueNode()) {
            throw ConfigSection.invalid(key, "(" + kind() + ")", rule);
        }
    }

    private String kind() {
        if (node.isArray()) {
            return "a list";
        }
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isNumber()) {
            return "a number";
        }
        if (node.isBoolean()) {
            return "a boolean";
        }
        return node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
