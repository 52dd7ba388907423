package io.docmirror.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The config file (YAML, of which JSON is a subset). Options are read as flat dotted keys: {@code store:
 * {sync-writes: false}} and {@code store.sync-writes: false} both give {@code store.sync-writes=false}, and each
 * module's config class validates its own section. Structured sections (lists and mappings of user-chosen names,
 * such as {@code derivations}) are kept as trees for their own readers.
 */
final class ConfigFile {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> STRUCTURED_SECTIONS = Set.of("derivations");

    private final Map<String, String> properties;
    private final JsonNode root;

    private ConfigFile(Map<String, String> properties, JsonNode root) {
        this.properties = properties;
        this.root = root;
    }

    static ConfigFile load(Optional<Path> file) {
        Map<String, String> properties = new TreeMap<>();
        if (file.isEmpty()) {
            return new ConfigFile(properties, MissingNode.getInstance());
        }
        JsonNode root;
        try {
            root = YAML.readTree(file.get().toFile());
        }
        catch (IOException e) {
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
            if (!STRUCTURED_SECTIONS.contains(field.getKey())) {
                flatten(field.getKey(), field.getValue(), properties);
            }
        }
        return new ConfigFile(properties, root);
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

    private static void flatten(String key, JsonNode node, Map<String, String> properties) {
        if (node.isObject()) {
            node.fields().forEachRemaining(field -> flatten(key + "." + field.getKey(), field.getValue(), properties));
        }
        else {
            properties.put(key, node.isNull() ? "" : node.asText());
        }
    }
}
