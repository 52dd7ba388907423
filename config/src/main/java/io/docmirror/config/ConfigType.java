package io.docmirror.config;

import java.util.regex.Pattern;

/**
 * The kind of value an option takes. A value is checked against its option's type when the section is read, so a
 * mistyped value is refused before anything starts, never taken for a default or an empty value.
 */
public enum ConfigType {
    /** Any text. */
    STRING("a string"),
    /** A whole number within a long ({@code 8081}, {@code -1}); {@code 1.5}, {@code 1e3} and {@code x} are not. */
    INTEGER("an integer"),
    /** {@code true} or {@code false}; {@code yes}, {@code on} and {@code 1} are not. */
    BOOLEAN("true or false"),
    /**
     * Names chosen by the user, each with a string: in a config file a nested mapping ({@code overrides: {"$.meta":
     * json}}), read as one {@code <key>.<name>} entry per name. The option's own key is never given a value.
     */
    MAPPING("a mapping of names to values"),
    /** A list of strings; only structured sections (read as trees, such as {@code derivations}) take one. */
    LIST("a list of values");

    private static final Pattern INTEGER_SPELLING = Pattern.compile("-?[0-9]+");

    private final String noun;

    ConfigType(String noun) {
        this.noun = noun;
    }

    /** What a value of this type is, for messages: "a string", "an integer", "true or false". */
    public String noun() {
        return noun;
    }

    /** The rule a value breaks when it is not of this type: "must be an integer". */
    public String rule() {
        return "must be " + noun;
    }

    /**
     * The type a default value is a value of, for options declared without one: {@code true} and {@code false} are
     * booleans, integers are integers, any other text is a string.
     */
    public static ConfigType ofDefault(String defaultValue) {
        String text = defaultValue.trim();
        if (text.equals("true") || text.equals("false")) {
            return BOOLEAN;
        }
        return INTEGER_SPELLING.matcher(text).matches() ? INTEGER : STRING;
    }

    /**
     * Checks a value given as text (a flattened config file, JDBC connection properties).
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason"
     */
    public void check(String key, String text) {
        switch (this) {
            case STRING -> {
            }
            case INTEGER -> parseLong(key, text);
            case BOOLEAN -> parseBoolean(key, text);
            // A mapping's entries are strings (SectionDefinition.typeOf), and neither kind is ever one text.
            case MAPPING, LIST -> throw ConfigSection.invalid(key, text, rule());
        }
    }

    /** The value of an integer option given as text; surrounding spaces are allowed. */
    long parseLong(String key, String text) {
        String trimmed = text.trim();
        try {
            return Long.parseLong(trimmed);
        } catch (NumberFormatException e) {
            if (INTEGER_SPELLING.matcher(trimmed).matches()) {
                throw ConfigSection.invalid(key, text, "must be an integer from " + Long.MIN_VALUE + " to "
                        + Long.MAX_VALUE);
            }
            throw ConfigSection.invalid(key, text, rule());
        }
    }

    /** The value of a boolean option given as text: exactly {@code true} or {@code false}, spaces around allowed. */
    boolean parseBoolean(String key, String text) {
        String trimmed = text.trim();
        if (!trimmed.equals("true") && !trimmed.equals("false")) {
            throw ConfigSection.invalid(key, text, rule());
        }
        return trimmed.equals("true");
    }
}
