package io.docmirror.cli;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigType;
import io.docmirror.config.SectionDefinition;
import io.docmirror.feed.derive.DerivationConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/configuration.md, rendered from the options' declarations (as Kafka's {@code ConfigDef.toHtml} renders its
 * reference): the prose around the tables is {@code configuration-reference.md} beside this class, where each line
 * {@code {{options SECTION}}} becomes the table of that section's options (key, default, values, what it does). A section is
 * a typed section of the config file, named without its dot ({@code store}), or {@code derivation} and
 * {@code derivation-target} for the keys of the structured {@code derivations} section. Every section must appear
 * exactly once, so a new one cannot be left out of the document.
 */
final class ConfigurationReference {
    /** The command that brings docs/configuration.md up to date. */
    static final String REGENERATE = "./docmirror config reference > docs/configuration.md";

    private static final String TEMPLATE = "configuration-reference.md";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{options ([a-z-]+)}}");

    private ConfigurationReference() {
    }

    static String render() {
        Map<String, List<ConfigOption>> unused = sections();
        StringBuilder document = new StringBuilder("<!-- Generated from the options' declarations and "
                + "cli/src/main/resources/io/docmirror/cli/" + TEMPLATE + " by: " + REGENERATE + " -->\n");
        for (String line : template().split("\n", -1)) {
            Matcher placeholder = PLACEHOLDER.matcher(line);
            if (!placeholder.matches()) {
                document.append(line).append('\n');
                continue;
            }
            List<ConfigOption> options = unused.remove(placeholder.group(1));
            if (options == null) {
                throw new IllegalStateException(TEMPLATE + " names section " + placeholder.group(1)
                        + ", which is not one, or names it twice");
            }
            document.append(table(options));
        }
        if (!unused.isEmpty()) {
            throw new IllegalStateException(TEMPLATE + " leaves out the options of " + unused.keySet());
        }
        // The template ends with a newline, and so does the document: one, not two.
        return document.substring(0, document.length() - 1);
    }

    private static Map<String, List<ConfigOption>> sections() {
        Map<String, List<ConfigOption>> sections = new LinkedHashMap<>();
        for (SectionDefinition section : ConfigFile.typedSections()) {
            sections.put(section.prefix().substring(0, section.prefix().length() - 1), section.options());
        }
        sections.put("derivation", DerivationConfig.DERIVATION_OPTIONS);
        sections.put("derivation-target", DerivationConfig.TARGET_OPTIONS);
        return sections;
    }

    private static String table(List<ConfigOption> options) {
        StringBuilder table = new StringBuilder("| key | default | values | what it does |\n| --- | --- | --- | --- |\n");
        for (ConfigOption option : options) {
            if (option.description().contains("|") || option.description().contains("\n")) {
                throw new IllegalStateException("The description of " + option.key() + " would break its table row");
            }
            table.append("| `").append(option.key()).append("` | ").append(defaultText(option)).append(" | ")
                    .append(valuesText(option)).append(" | ").append(option.description()).append(" |\n");
        }
        return table.toString();
    }

    /**
     * The option's type, and its rule when it has one: "an integer, at least 1"; a mapping's rule is its values':
     * "a mapping of names to values, each one of json, drop".
     */
    private static String valuesText(ConfigOption option) {
        String rule = option.rule().text();
        if (rule.isEmpty()) {
            return option.type().noun();
        }
        return option.type().noun() + (option.type() == ConfigType.MAPPING ? ", each " : ", ") + rule;
    }

    private static String defaultText(ConfigOption option) {
        return option.defaultValue()
                .map(value -> value.isEmpty() ? "(empty)" : "`" + value + "`")
                .orElse("(none)");
    }

    private static String template() {
        try (InputStream in = ConfigurationReference.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException(TEMPLATE + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
