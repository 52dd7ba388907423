package io.docmirror.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads the config file (YAML, of which JSON is a subset) into flat dotted keys: {@code store: {sync-writes: false}}
 * and {@code store.sync-writes: false} both give {@code store.sync-writes=false}. Each module's config class
 * validates its own section.
 */
final class ConfigFile {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ConfigFile() {
    }

    static Map<String, String> load(Optional<Path> file) {
        Map<String, String> properties = new TreeMap<>();
        if (file.isEmpty()) {
            return properties;
        }
        JsonNode root;
        try {
            root = YAML.readTree(file.get().toFile());
        }
        catch (IOException e) {
            throw new IllegalArgumentException("Cannot read config file " + file.get() + ": " + e.getMessage(), e);
        }
        if (root != null && !root.isMissingNode()) {
            if (!root.isObject()) {
                throw new IllegalArgumentException("Cannot read config file " + file.get() + ": it is not a mapping of keys");
            }
            flatten("", root, properties);
        }
        return properties;
    }

    static Map<String, String> section(Map<String, String> properties, String prefix) {
        Map<String, String> section = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                section.put(key, value);
            }
        });
        return section;
    }

    private static void flatten(String prefix, JsonNode node, Map<String, String> properties) {
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String key = prefix + field.getKey();
            if (field.getValue().isObject()) {
                flatten(key + ".", field.getValue(), properties);
            }
            else {
                properties.put(key, field.getValue().isNull() ? "" : field.getValue().asText());
            }
        }
    }
}
