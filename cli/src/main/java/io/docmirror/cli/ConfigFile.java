package io.docmirror.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.docmirror.config.ConfigType;
import io.docmirror.config.NearestKey;
import io.docmirror.config.SectionDefinition;
import io.docmirror.config.TreeValue;
import io.docmirror.feed.derive.DerivationConfig;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.metrics.MetricsConfig;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.store.StoreConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The config file (YAML, of which JSON is a subset). Options are read as flat dotted keys: {@code store:
 * {sync-writes: false}} and {@code store.sync-writes: false} both give {@code store.sync-writes=false}, and each
 * module's config class reads its own section. Structured sections (lists and mappings of user-chosen names, such as
 * {@code derivations}) are kept as trees for their own readers.
 *
 * <p>The whole file is checked when it is loaded, whichever sections a command reads: every top-level key must name
 * a section, every key of a section with declared options must be one of them, and every value must be of its
 * option's type (YAML's kinds are still known here: a list or null is refused rather than read as empty text).
 */
final class ConfigFile {
    /**
     * YAML 1.1 reads {@code yes}, {@code no}, {@code on} and {@code off} as booleans; here they stay text, which a
     * boolean option refuses. An empty value ({@code primary-key:}) is null, as YAML has it (a builder would make it
     * the empty string unless told). A key given twice is an error, not "the last one wins".
     */
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
            .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL).build())
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    /**
     * The sections whose options are declared with their types: every section {@link DataDirOptions} reads is
     * listed here too, or a file that sets one of its options is refused as naming an unknown section.
     */
    private static final List<SectionDefinition> TYPED_SECTIONS = List.of(
            new SectionDefinition("store.", StoreConfig.OPTIONS),
            new SectionDefinition("mirror.", MirrorConfig.OPTIONS),
            new SectionDefinition(SqlConfig.PREFIX, SqlConfig.OPTIONS),
            new SectionDefinition(FlightConfig.PREFIX, FlightConfig.OPTIONS),
            new SectionDefinition(KafkaBridgeConfig.PREFIX, KafkaBridgeConfig.OPTIONS),
            new SectionDefinition(MetricsConfig.PREFIX, MetricsConfig.OPTIONS),
            new SectionDefinition(FlattenerConfig.PREFIX, FlattenerConfig.OPTIONS));
    private static final String STRUCTURED_SECTION = DerivationConfig.SECTION;
    private static final List<String> SECTIONS = Stream.concat(
            TYPED_SECTIONS.stream().map(section -> section.prefix().substring(0, section.prefix().length() - 1)),
            Stream.of(STRUCTURED_SECTION)).toList();

    private final Map<String, String> properties;
    private final JsonNode root;

    private ConfigFile(Map<String, String> properties, JsonNode root) {
        this.properties = properties;
        this.root = root;
    }

    /**
     * @throws IllegalArgumentException for a file that cannot be read, an unknown section or key, or a value that is
     *     not of its option's type, naming the key, the value and the rule
     */
    static ConfigFile load(Optional<Path> file) {
        Map<String, String> properties = new TreeMap<>();
        if (file.isEmpty()) {
            return new ConfigFile(properties, MissingNode.getInstance());
        }
        JsonNode root;
        try {
            root = YAML.readTree(file.get().toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read config file " + file.get() + ": " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode()) {
            return new ConfigFile(properties, MissingNode.getInstance());
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException("Cannot read config file " + file.get() + ": it is not a mapping of keys");
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = root.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            readTopLevel(field.getKey(), field.getValue(), properties);
        }
        return new ConfigFile(properties, root);
    }

    /** The sections whose options are declared with their types, in the order the file's errors list them. */
    static List<SectionDefinition> typedSections() {
        return TYPED_SECTIONS;
    }

    /** The options whose keys start with {@code prefix} ({@code "mirror."}). */
    Map<String, String> section(String prefix) {
        Map<String, String> section = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                section.put(key, value);
            }
        });
        return section;
    }

    /** A structured section as written, or a missing node. */
    JsonNode structuredSection(String name) {
        return root.path(name);
    }

    /** The section a top-level key belongs to: {@code store} for {@code store} and {@code store.sync-writes}. */
    private static String sectionOf(String topLevelKey) {
        int dot = topLevelKey.indexOf('.');
        String section = dot < 0 ? topLevelKey : topLevelKey.substring(0, dot);
        if (!SECTIONS.contains(section)) {
            throw new IllegalArgumentException("Unknown configuration section " + section + " (did you mean "
                    + new NearestKey(SECTIONS).to(section) + "?); the sections are " + String.join(", ", SECTIONS)
                    + " (docs/configuration.md)");
        }
        return section;
    }

    /** Reads a top-level entry: a section ({@code store: {...}}) or one of its options ({@code store.sync-writes}). */
    private static void readTopLevel(String key, JsonNode value, Map<String, String> properties) {
        String section = sectionOf(key);
        if (section.equals(STRUCTURED_SECTION)) {
            if (!key.equals(section)) {
                throw new IllegalArgumentException("Unknown configuration " + key + ": write the " + section
                        + " section as one mapping (docs/configuration.md)");
            }
            return;
        }
        if (!key.equals(section)) {
            flatten(key, value, properties);
            return;
        }
        if (value.isNull()) {
            // A section whose options are all left out (or commented out): every option keeps its default.
            return;
        }
        if (!value.isObject()) {
            throw new IllegalArgumentException("Invalid configuration section " + section + ": it must be a mapping "
                    + "of its options, such as " + section + ": {key: value}");
        }
        value.fields().forEachRemaining(field -> flatten(key + "." + field.getKey(), field.getValue(), properties));
    }

    /** Nested mappings become dotted keys; anything else (an empty mapping too) is an option's value. */
    private static void flatten(String key, JsonNode node, Map<String, String> properties) {
        if (node.isObject() && !node.isEmpty()) {
            node.fields().forEachRemaining(field -> flatten(key + "." + field.getKey(), field.getValue(), properties));
            return;
        }
        SectionDefinition section = typedSection(key);
        if (node.isObject() && section.typeOf(key) == ConfigType.MAPPING) {
            return; // A mapping with no entries.
        }
        String text = new TreeValue(key, node).textFor(section.typeOf(key));
        if (properties.putIfAbsent(key, text) != null) {
            throw new IllegalArgumentException("Configuration " + key + " is given twice (a dotted key and a nested "
                    + "one name the same option)");
        }
    }

    /** The typed section of a key: every key but the structured section's has one ({@link #sectionOf}). */
    private static SectionDefinition typedSection(String key) {
        return TYPED_SECTIONS.stream().filter(typed -> typed.covers(key)).findFirst().orElseThrow();
    }
}
