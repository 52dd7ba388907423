package io.docmirror.feed.derive;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.StoreException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the config file's {@code derivations} section: a mapping from each derivation's name to its source and
 * targets (docs/configuration.md, "Derivations", shows every key). Errors name the derivation, the target and the
 * key, so a mistake is found without reading the code.
 */
public final class DerivationConfig {
    private static final Set<String> DERIVATION_KEYS = Set.of("source", "targets");
    private static final Set<String> TARGET_KEYS = Set.of("partition-key", "id", "fields", "drop", "flatten", "split",
            "parent-fields", "index-field", "delete-with-source", "ttl", "analytical-ttl");

    private DerivationConfig() {
    }

    /**
     * @param section the {@code derivations} node of the config file; missing or null for none
     * @throws IllegalArgumentException naming the derivation, target and key of the first mistake
     */
    public static List<Derivation> fromConfig(JsonNode section) {
        List<Derivation> derivations = new ArrayList<>();
        if (section == null || section.isMissingNode() || section.isNull()) {
            return derivations;
        }
        if (!section.isObject()) {
            throw new IllegalArgumentException("Invalid configuration derivations: it must map each derivation's name "
                    + "to its source and targets");
        }
        Map<String, String> targetOwners = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = section.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            Derivation derivation = derivation(entry.getKey(), entry.getValue());
            for (TargetMapping target : derivation.targets()) {
                String owner = targetOwners.putIfAbsent(target.container(), derivation.name());
                if (owner != null) {
                    throw new IllegalArgumentException("Invalid configuration derivations." + derivation.name()
                            + ".targets." + target.container() + ": derivation " + owner
                            + " already writes that container, and two derivations would overwrite each other");
                }
            }
            derivations.add(derivation);
        }
        return derivations;
    }

    private static Derivation derivation(String name, JsonNode node) {
        String key = "derivations." + name;
        checkKeys(key, node, DERIVATION_KEYS);
        String source = requiredText(key, node, "source");
        JsonNode targetsNode = node.path("targets");
        if (!targetsNode.isObject() || targetsNode.isEmpty()) {
            throw invalid(key + ".targets", "it must map each target container's name to its mapping");
        }
        List<TargetMapping> targets = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = targetsNode.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> target = it.next();
            if (target.getKey().equals(source)) {
                throw invalid(key + ".targets." + target.getKey(), "a derivation cannot write its own source");
            }
            targets.add(target(key + ".targets." + target.getKey(), target.getKey(), target.getValue()));
        }
        return new Derivation(name, source, targets);
    }

    private static TargetMapping target(String key, String container, JsonNode node) {
        checkKeys(key, node, TARGET_KEYS);
        JsonPointer partitionKey = pointer(key + ".partition-key", requiredText(key, node, "partition-key"));
        IdTemplate id;
        try {
            id = IdTemplate.parse(requiredText(key, node, "id"));
        } catch (IllegalArgumentException e) {
            throw invalid(key + ".id", e.getMessage());
        }
        Optional<JsonPointer> split = optionalText(key, node, "split").map(text -> pointer(key + ".split", text));
        Map<String, JsonPointer> parentFields = pointerMap(key + ".parent-fields", node.path("parent-fields"));
        Optional<String> indexField = optionalText(key, node, "index-field");
        if (split.isEmpty() && (!parentFields.isEmpty() || indexField.isPresent())) {
            throw invalid(key, "parent-fields and index-field need split (they describe array elements)");
        }
        List<JsonPointer> drop = new ArrayList<>();
        JsonNode dropNode = node.path("drop");
        if (!dropNode.isMissingNode() && !dropNode.isArray()) {
            throw invalid(key + ".drop", "it must be a list of JSON pointers such as [/items, /customer/email]");
        }
        for (JsonNode pointer : dropNode) {
            drop.add(pointer(key + ".drop", pointer.asText()));
        }
        TargetMapping mapping = new TargetMapping(container, partitionKey, id,
                pointerMap(key + ".fields", node.path("fields")), drop, bool(key, node, "flatten", false), split,
                parentFields, indexField, bool(key, node, "delete-with-source", true), ttl(key, node, "ttl", null),
                ttl(key, node, "analytical-ttl", -1));
        try {
            mapping.containerProperties();
        } catch (StoreException e) {
            throw invalid(key, e.getMessage());
        }
        return mapping;
    }

    private static void checkKeys(String key, JsonNode node, Set<String> known) {
        if (!node.isObject()) {
            throw invalid(key, "it must be a mapping of keys");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new IllegalArgumentException("Unknown configuration " + key + "." + name + "; the keys are "
                        + known.stream().sorted().toList() + " (docs/configuration.md)");
            }
        }
    }

    private static String requiredText(String key, JsonNode node, String name) {
        return optionalText(key, node, name).orElseThrow(() -> invalid(key + "." + name, "it is required"));
    }

    private static Optional<String> optionalText(String key, JsonNode node, String name) {
        JsonNode value = node.path(name);
        if (value.isMissingNode() || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual() || value.textValue().isEmpty()) {
            throw invalid(key + "." + name, "it must be a non-empty string");
        }
        return Optional.of(value.textValue());
    }

    private static boolean bool(String key, JsonNode node, String name, boolean defaultValue) {
        JsonNode value = node.path(name);
        if (value.isMissingNode()) {
            return defaultValue;
        }
        if (!value.isBoolean()) {
            throw invalid(key + "." + name, "it must be true or false");
        }
        return value.booleanValue();
    }

    private static Integer ttl(String key, JsonNode node, String name, Integer defaultValue) {
        JsonNode value = node.path(name);
        if (value.isMissingNode()) {
            return defaultValue;
        }
        if (value.isNull()) {
            return null;
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber()) {
            throw invalid(key + "." + name, "it must be -1 or a number of seconds");
        }
        return value.intValue();
    }

    private static Map<String, JsonPointer> pointerMap(String key, JsonNode node) {
        Map<String, JsonPointer> pointers = new LinkedHashMap<>();
        if (node.isMissingNode()) {
            return pointers;
        }
        if (!node.isObject()) {
            throw invalid(key, "it must map each target field to a JSON pointer such as /customer/name");
        }
        node.fields().forEachRemaining(field -> pointers.put(field.getKey(),
                pointer(key + "." + field.getKey(), field.getValue().asText())));
        return pointers;
    }

    private static JsonPointer pointer(String key, String text) {
        if (!text.startsWith("/")) {
            throw invalid(key, text + " is not a JSON pointer: it must start with / (such as /customer/name)");
        }
        try {
            return JsonPointer.compile(text);
        } catch (IllegalArgumentException e) {
            throw invalid(key, text + " is not a JSON pointer: " + e.getMessage());
        }
    }

    private static IllegalArgumentException invalid(String key, String reason) {
        return new IllegalArgumentException("Invalid configuration " + key + ": " + reason);
    }
}
