package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where a column's values live in a document, in JSONPath notation: {@code $.customer.billingAddress.city},
 * {@code $.items[*].sku}, {@code $["address line 2"]}. A {@code null} step stands for "each element of the array"
 * ({@code [*]}); every other step is a property name, any string at all.
 */
public record JsonPath(List<String> steps) {
    public static final JsonPath ROOT = new JsonPath(List.of());

    public JsonPath {
        steps = java.util.Collections.unmodifiableList(new ArrayList<>(requireNonNull(steps, "steps is null")));
    }

    public JsonPath property(String name) {
        requireNonNull(name, "name is null");
        List<String> longer = new ArrayList<>(steps);
        longer.add(name);
        return new JsonPath(longer);
    }

    public JsonPath eachElement() {
        List<String> longer = new ArrayList<>(steps);
        longer.add(null);
        return new JsonPath(longer);
    }

    public JsonPath properties(List<String> names) {
        List<String> longer = new ArrayList<>(steps);
        longer.addAll(names);
        return new JsonPath(longer);
    }

    /** Parses the notation {@link #toString()} writes: {@code $}, {@code .name}, {@code ["any name"]}, {@code [*]}. */
    public static JsonPath parse(String text) {
        requireNonNull(text, "text is null");
        if (!text.startsWith("$")) {
            throw new IllegalArgumentException("Cannot parse JSON path '" + text + "': it must start with $");
        }
        List<String> steps = new ArrayList<>();
        int position = 1;
        while (position < text.length()) {
            char c = text.charAt(position);
            if (c == '.') {
                int end = position + 1;
                while (end < text.length() && text.charAt(end) != '.' && text.charAt(end) != '[') {
                    end++;
                }
                if (end == position + 1) {
                    throw new IllegalArgumentException("Cannot parse JSON path '" + text + "': empty name at " + position);
                }
                steps.add(text.substring(position + 1, end));
                position = end;
            } else if (text.startsWith("[*]", position)) {
                steps.add(null);
                position += 3;
            } else if (text.startsWith("[\"", position)) {
                StringBuilder name = new StringBuilder();
                int index = position + 2;
                while (true) {
                    if (index >= text.length()) {
                        throw new IllegalArgumentException("Cannot parse JSON path '" + text + "': unterminated name");
                    }
                    char d = text.charAt(index);
                    if (d == '"') {
                        break;
                    }
                    if (d == '\\') {
                        char escaped = text.charAt(index + 1);
                        if (escaped == 'u') {
                            name.append((char) Integer.parseInt(text.substring(index + 2, index + 6), 16));
                            index += 6;
                        } else {
                            name.append(switch (escaped) {
                                case 'n' -> '\n';
                                case 't' -> '\t';
                                case 'r' -> '\r';
                                case 'b' -> '\b';
                                case 'f' -> '\f';
                                default -> escaped;
                            });
                            index += 2;
                        }
                        continue;
                    }
                    name.append(d);
                    index++;
                }
                if (!text.startsWith("\"]", index)) {
                    throw new IllegalArgumentException("Cannot parse JSON path '" + text + "': expected \"] at " + index);
                }
                steps.add(name.toString());
                position = index + 2;
            } else {
                throw new IllegalArgumentException("Cannot parse JSON path '" + text + "': unexpected '" + c
                        + "' at " + position);
            }
        }
        return new JsonPath(steps);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("$");
        appendSteps(text, steps);
        return text.toString();
    }

    /**
     * The steps without the leading {@code $}: {@code items}, {@code customer.items}, {@code ["a b"]}. Child rows
     * use it to spell {@code _row}.
     */
    static String relativeText(List<String> names) {
        StringBuilder text = new StringBuilder();
        appendSteps(text, names);
        return text.length() > 0 && text.charAt(0) == '.' ? text.substring(1) : text.toString();
    }

    private static void appendSteps(StringBuilder text, List<String> steps) {
        for (String step : steps) {
            if (step == null) {
                text.append("[*]");
            } else if (isPlainName(step)) {
                text.append('.').append(step);
            } else {
                text.append("[\"");
                for (int i = 0; i < step.length(); i++) {
                    char c = step.charAt(i);
                    if (c == '"' || c == '\\') {
                        text.append('\\').append(c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < step.length()
                            && Character.isLowSurrogate(step.charAt(i + 1))) {
                        text.append(c).append(step.charAt(++i));
                    } else if (c < 0x20 || Character.isSurrogate(c)) {
                        text.append(String.format("\\u%04x", (int) c));
                    } else {
                        text.append(c);
                    }
                }
                text.append("\"]");
            }
        }
    }

    private static boolean isPlainName(String name) {
        if (name.isEmpty() || !(Character.isLetter(name.charAt(0)) || name.charAt(0) == '_' || name.charAt(0) == '$')) {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '$') || Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
