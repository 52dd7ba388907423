package io.docmirror.config;

import java.util.List;
import java.util.Locale;
import java.util.function.LongPredicate;

/**
 * A rule an option's values keep beyond their type ("at least 1", "0 to 65535"), declared with the option as Kafka's
 * {@code ConfigDef} declares validators: a configuration checks its values against it when it is made, and
 * docs/configuration.md shows it.
 */
public final class ConfigRule {
    /** No rule beyond the option's type. */
    public static final ConfigRule ANY = new ConfigRule("", value -> true, List.of());

    private final String text;
    private final LongPredicate allowsNumber;
    private final List<String> allowedWords;

    private ConfigRule(String text, LongPredicate allowsNumber, List<String> allowedWords) {
        this.text = text;
        this.allowsNumber = allowsNumber;
        this.allowedWords = allowedWords;
    }

    public static ConfigRule atLeast(long min) {
        return new ConfigRule("at least " + min, value -> value >= min, List.of());
    }

    /** From {@code min} to {@code max}, both included. */
    public static ConfigRule between(long min, long max) {
        return new ConfigRule("from " + min + " to " + max, value -> value >= min && value <= max, List.of());
    }

    /** {@code special} (which means what {@code meaning} says), or at least {@code min}: "-1 (forever) or at least 1". */
    public static ConfigRule atLeastOr(long min, long special, String meaning) {
        return new ConfigRule(special + " (" + meaning + ") or at least " + min,
                value -> value == special || value >= min, List.of());
    }

    /** One of these words, in any case. */
    public static ConfigRule oneOf(String... words) {
        return new ConfigRule("one of " + String.join(", ", words), value -> false, List.of(words));
    }

    /** What a value must be, for docs/configuration.md: "at least 1"; empty for {@link #ANY}. */
    public String text() {
        return text;
    }

    /**
     * @throws IllegalArgumentException "Invalid value X for configuration Y: must be at least 1"
     */
    void check(String key, long value) {
        if (this != ANY && (!allowedWords.isEmpty() || !allowsNumber.test(value))) {
            throw ConfigSection.invalid(key, value, "must be " + text);
        }
    }

    /**
     * @throws IllegalArgumentException "Invalid value X for configuration Y: must be one of a, b"
     */
    void check(String key, String value) {
        if (this != ANY && !allowedWords.contains(value.trim().toLowerCase(Locale.ROOT))) {
            throw ConfigSection.invalid(key, value, "must be " + text);
        }
    }
}
