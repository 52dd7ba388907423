package io.docmirror.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A scrape read by the rules of Prometheus's text exposition format (0.0.4): {@code # HELP} and {@code # TYPE} lines,
 * then samples {@code name{label="value",...} value}, label values with {@code \\}, {@code \"} and {@code \n}
 * escapes. A line that breaks the format, or a sample of no declared family, fails the parse.
 */
final class PrometheusText {
    /**
     * The sample names each type's family may have, as suffixes of the family's name. (In this format a counter's
     * family is named with its {@code _total}, and {@code _created} times are gauge families of their own.)
     */
    private static final Map<String, List<String>> SUFFIXES = Map.of(
            "counter", List.of(""),
            "gauge", List.of(""),
            "histogram", List.of("_bucket", "_count", "_sum"),
            "summary", List.of("", "_count", "_sum"),
            "untyped", List.of(""));

    record Sample(String name, Map<String, String> labels, double value) {
    }

    private final Map<String, String> types = new HashMap<>();
    private final List<Sample> samples = new ArrayList<>();

    private PrometheusText() {
    }

    static PrometheusText parse(String text) {
        PrometheusText parsed = new PrometheusText();
        int number = 0;
        for (String line : text.split("\n", -1)) {
            number++;
            if (line.isEmpty()) {
                continue;
            }
            try {
                parsed.read(line);
            }
            catch (RuntimeException e) {
                throw new IllegalArgumentException("Line " + number + " is not Prometheus text format: " + line, e);
            }
        }
        return parsed;
    }

    private void read(String line) {
        if (line.startsWith("# TYPE ")) {
            String[] parts = line.substring(7).split(" ");
            if (parts.length != 2 || !SUFFIXES.containsKey(parts[1]) || types.put(parts[0], parts[1]) != null) {
                throw new IllegalArgumentException("a TYPE names a family once, with a known type");
            }
            return;
        }
        if (line.startsWith("#")) {
            return;
        }
        int position = 0;
        while (position < line.length() && line.charAt(position) != '{' && line.charAt(position) != ' ') {
            position++;
        }
        String name = line.substring(0, position);
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("bad metric name '" + name + "'");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (position < line.length() && line.charAt(position) == '{') {
            position = readLabels(line, position + 1, labels);
        }
        if (position >= line.length() || line.charAt(position) != ' ') {
            throw new IllegalArgumentException("no value after the labels");
        }
        String[] rest = line.substring(position + 1).split(" ");
        if (rest.length < 1 || rest.length > 2) {
            throw new IllegalArgumentException("a value and an optional timestamp");
        }
        family(name);
        samples.add(new Sample(name, labels, value(rest[0])));
    }

    private static int readLabels(String line, int position, Map<String, String> labels) {
        while (line.charAt(position) != '}') {
            int equals = line.indexOf('=', position);
            String label = line.substring(position, equals);
            if (!label.matches("[a-zA-Z_][a-zA-Z0-9_]*") || line.charAt(equals + 1) != '"') {
                throw new IllegalArgumentException("bad label '" + label + "'");
            }
            StringBuilder value = new StringBuilder();
            position = equals + 2;
            for (char c = line.charAt(position); c != '"'; c = line.charAt(position)) {
                if (c == '\\') {
                    char escaped = line.charAt(++position);
                    value.append(switch (escaped) {
                        case '\\' -> '\\';
                        case '"' -> '"';
                        case 'n' -> '\n';
                        default -> throw new IllegalArgumentException("bad escape \\" + escaped);
                    });
                }
                else {
                    value.append(c);
                }
                position++;
            }
            if (labels.put(label, value.toString()) != null) {
                throw new IllegalArgumentException("label " + label + " given twice");
            }
            position++;
            if (line.charAt(position) == ',') {
                position++;
            }
        }
        return position + 1;
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    /** The declared family a sample belongs to. */
    private String family(String sample) {
        for (Map.Entry<String, String> family : types.entrySet()) {
            for (String suffix : SUFFIXES.get(family.getValue())) {
                if (sample.equals(family.getKey() + suffix)) {
                    return family.getKey();
                }
            }
        }
        throw new IllegalArgumentException("sample " + sample + " belongs to no family declared by a TYPE line");
    }

    String type(String family) {
        return types.get(family);
    }

    Set<String> families() {
        return types.keySet();
    }

    /** The samples named {@code name} whose labels include every one of {@code labels}. */
    List<Sample> samples(String name, Map<String, String> labels) {
        return samples.stream()
                .filter(sample -> sample.name().equals(name))
                .filter(sample -> sample.labels().entrySet().containsAll(labels.entrySet()))
                .toList();
    }

    double sum(String name, Map<String, String> labels) {
        return samples(name, labels).stream().mapToDouble(Sample::value).sum();
    }
}
