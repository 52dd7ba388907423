package io.docmirror.feed.derive;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;
import io.docmirror.config.ConfigType;
import io.docmirror.config.NearestKey;
import io.docmirror.config.TreeValue;
import io.docmirror.store.StoreException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the config file's {@code derivations} section: a mapping from each derivation's name to its source and
 * targets. The keys of a derivation and of a target are declared once below, with their types, defaults and docs
 * (docs/configuration.md, "Derivations", is generated from them). Errors name the derivation, the target and the
 * key, so a mistake is found without reading the code.
 */
public final class DerivationConfig {
    /** The config file's section holding the derivations, by name. */
    public static final String SECTION = "derivations";

    private static final ConfigOption SOURCE = ConfigOption.withoutDefault("source", ConfigType.STRING,
            "Required: the container the derivation reads (its change feed); it must exist.");
    private static final ConfigOption TARGETS = ConfigOption.withoutDefault("targets", ConfigType.MAPPING,
            "Required: each target container's name, mapped to its keys (below). A target is created when missing; "
                    + "no two derivations may write the same one, and none its own source.");
    /** The keys of a derivation, relative to {@code derivations.<name>}. */
    public static final List<ConfigOption> DERIVATION_OPTIONS = List.of(SOURCE, TARGETS);

    private static final ConfigOption PARTITION_KEY = ConfigOption.withoutDefault("partition-key", ConfigType.STRING,
            "Required: the target's partition key, a JSON pointer into the produced document (`/customerId`).");
    private static final ConfigOption ID = ConfigOption.withoutDefault("id", ConfigType.STRING,
            "Required: the template of the deterministic id, `{field}` standing for a top-level field of the "
                    + "produced document (`\"{orderId}:{line}\"`).");
    private static final ConfigOption SPLIT = ConfigOption.withoutDefault("split", ConfigType.STRING,
            "One target document per element of the array at this JSON pointer (a non-object element becomes "
                    + "`{\"value\": element}`; a missing or null array gives none). Absent: one target document per "
                    + "source document.");
    private static final ConfigOption PARENT_FIELDS = ConfigOption.withoutDefault("parent-fields",
            ConfigType.MAPPING, "With `split` only: fields copied from the whole source document, each mapped to a "
                    + "JSON pointer (`orderId: /id`).");
    private static final ConfigOption INDEX_FIELD = ConfigOption.withoutDefault("index-field", ConfigType.STRING,
            "With `split` only: the field that receives the element's position (0, 1, ...).");
    private static final ConfigOption FIELDS = ConfigOption.withoutDefault("fields", ConfigType.MAPPING,
            "The target's fields, each mapped to a JSON pointer into the source document (or the element, with "
                    + "`split`). Absent: every field is kept except the store's system properties and `ttl`.");
    private static final ConfigOption DROP = ConfigOption.withoutDefault("drop", ConfigType.LIST,
            "JSON pointers removed from the produced document (`[/discounts, /customer/email]`).");
    private static final ConfigOption FLATTEN = new ConfigOption("flatten", ConfigType.BOOLEAN, "false",
            "`true`: nested objects become top-level fields named `a_b_c`.");
    private static final ConfigOption DELETE_WITH_SOURCE = new ConfigOption("delete-with-source", ConfigType.BOOLEAN,
            "true", "`false`: a user delete of the source (or an update that no longer produces the document) "
                    + "leaves this target document alone.");
    private static final ConfigOption TTL = ConfigOption.withoutDefault("ttl", ConfigType.INTEGER,
            "The target container's default TTL: `-1` or a number of seconds. Absent: none.")
            .withRule(ConfigRule.atLeastOr(1, -1, "items expire only by their own ttl"));
    private static final ConfigOption ANALYTICAL_TTL = new ConfigOption("analytical-ttl", ConfigType.INTEGER, "-1",
            "The target's analytical TTL in seconds; `-1` mirrors it and keeps every version.")
            .withRule(ConfigRule.atLeastOr(0, -1, "mirrored, every version kept"));
    /** The keys of a target, relative to {@code derivations.<name>.targets.<container>}. */
    public static final List<ConfigOption> TARGET_OPTIONS = List.of(PARTITION_KEY, ID, SPLIT, PARENT_FIELDS,
            INDEX_FIELD, FIELDS, DROP, FLATTEN, DELETE_WITH_SOURCE, TTL, ANALYTICAL_TTL);

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
            throw invalid(SECTION, "it must map each derivation's name to its source and targets");
        }
        Map<String, String> targetOwners = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = section.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            Derivation derivation = derivation(entry.getKey(), entry.getValue());
            for (TargetMapping target : derivation.targets()) {
                String owner = targetOwners.putIfAbsent(target.container(), derivation.name());
                if (owner != null) {
                    throw invalid(targetKey(derivationKey(derivation.name()), target.container()), "derivation "
                            + owner + " already writes that container, and two derivations would overwrite each other");
                }
            }
            derivations.add(derivation);
        }
        return derivations;
    }

    private static Derivation derivation(String name, JsonNode node) {
        String key = derivationKey(name);
        checkKeys(key, node, DERIVATION_OPTIONS);
        String source = requiredText(key, node, SOURCE);
        JsonNode targetsNode = node.path(TARGETS.key());
        if (!targetsNode.isObject() || targetsNode.isEmpty()) {
            throw invalid(optionKey(key, TARGETS), "it must map each target container's name to its mapping");
        }
        List<TargetMapping> targets = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = targetsNode.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> target = it.next();
            if (target.getKey().equals(source)) {
                throw invalid(targetKey(key, target.getKey()), "a derivation cannot write its own source");
            }
            targets.add(target(targetKey(key, target.getKey()), target.getKey(), target.getValue()));
        }
        return new Derivation(name, source, targets);
    }

    private static TargetMapping target(String key, String container, JsonNode node) {
        checkKeys(key, node, TARGET_OPTIONS);
        JsonPointer partitionKey = pointer(optionKey(key, PARTITION_KEY), requiredText(key, node, PARTITION_KEY));
        IdTemplate id;
        try {
            id = IdTemplate.parse(requiredText(key, node, ID));
        } catch (IllegalArgumentException e) {
            throw invalid(optionKey(key, ID), e.getMessage());
        }
        Optional<JsonPointer> split = optionalText(key, node, SPLIT)
                .map(text -> pointer(optionKey(key, SPLIT), text));
        Map<String, JsonPointer> parentFields = pointerMap(optionKey(key, PARENT_FIELDS),
                node.path(PARENT_FIELDS.key()));
        Optional<String> indexField = optionalText(key, node, INDEX_FIELD);
        if (split.isEmpty() && (!parentFields.isEmpty() || indexField.isPresent())) {
            throw invalid(key, PARENT_FIELDS.key() + " and " + INDEX_FIELD.key() + " need " + SPLIT.key()
                    + " (they describe array elements)");
        }
        List<JsonPointer> drop = new ArrayList<>();
        JsonNode dropNode = node.path(DROP.key());
        String dropKey = optionKey(key, DROP);
        if (!dropNode.isMissingNode() && !dropNode.isArray()) {
            throw invalid(dropKey, "it must be a list of JSON pointers such as [/items, /customer/email]");
        }
        for (JsonNode pointer : dropNode) {
            drop.add(pointer(dropKey, new TreeValue(dropKey, pointer).textFor(ConfigType.STRING)));
        }
        TargetMapping mapping = new TargetMapping(container, partitionKey, id,
                pointerMap(optionKey(key, FIELDS), node.path(FIELDS.key())), drop, bool(key, node, FLATTEN), split,
                parentFields, indexField, bool(key, node, DELETE_WITH_SOURCE), ttl(key, node, TTL),
                ttl(key, node, ANALYTICAL_TTL));
        try {
            mapping.containerProperties();
        } catch (StoreException e) {
            throw invalid(key, e.getMessage());
        }
        return mapping;
    }

    /** Every key must be declared: an unknown one is refused with the nearest declared one. */
    private static void checkKeys(String key, JsonNode node, List<ConfigOption> declared) {
        if (!node.isObject()) {
            throw invalid(key, "it must be a mapping of keys");
        }
        List<String> known = declared.stream().map(ConfigOption::key).toList();
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new IllegalArgumentException("Unknown configuration " + key + "." + name + " (did you mean "
                        + new NearestKey(known).to(name) + "?); see docs/configuration.md");
            }
        }
    }

    private static String requiredText(String key, JsonNode node, ConfigOption option) {
        return optionalText(key, node, option)
                .orElseThrow(() -> invalid(optionKey(key, option), "it is required"));
    }

    /** A string option's value; null is the same as absent. */
    private static Optional<String> optionalText(String key, JsonNode node, ConfigOption option) {
        return given(node, option).map(value -> {
            String optionKey = optionKey(key, option);
            String text = new TreeValue(optionKey, value).textFor(option.type());
            if (text.isEmpty()) {
                throw invalid(optionKey, "it must be a non-empty string");
            }
            return text;
        });
    }

    private static boolean bool(String key, JsonNode node, ConfigOption option) {
        String text = given(node, option).map(value -> new TreeValue(optionKey(key, option), value)
                .textFor(option.type())).orElseGet(() -> option.defaultValue().orElseThrow());
        return Boolean.parseBoolean(text.trim());
    }

    /** A TTL in seconds; absent: the option's default, or none; null: none (the store's own default). */
    private static Integer ttl(String key, JsonNode node, ConfigOption option) {
        String optionKey = optionKey(key, option);
        if (node.path(option.key()).isNull()) {
            return null;
        }
        Optional<String> text = given(node, option).map(value -> new TreeValue(optionKey, value).textFor(option.type()))
                .or(option::defaultValue);
        if (text.isEmpty()) {
            return null;
        }
        int seconds;
        try {
            seconds = Integer.parseInt(text.get().trim());
        } catch (NumberFormatException e) {
            throw ConfigSection.invalid(optionKey, text.get(), "must be " + option.rule().text());
        }
        option.check(optionKey, seconds);
        return seconds;
    }

    /** {@code derivations.<name>}. */
    private static String derivationKey(String name) {
        return SECTION + "." + name;
    }

    /** {@code derivations.<name>.targets.<container>}. */
    private static String targetKey(String derivationKey, String container) {
        return optionKey(derivationKey, TARGETS) + "." + container;
    }

    /** The full key of a derivation's or a target's option: {@code derivations.d.targets.T.split}. */
    private static String optionKey(String key, ConfigOption option) {
        return key + "." + option.key();
    }

    /** The option's node in a mapping, unless absent or null. */
    private static Optional<JsonNode> given(JsonNode node, ConfigOption option) {
        JsonNode value = node.path(option.key());
        return value.isMissingNode() || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    private static Map<String, JsonPointer> pointerMap(String key, JsonNode node) {
        Map<String, JsonPointer> pointers = new LinkedHashMap<>();
        if (node.isMissingNode()) {
            return pointers;
        }
        if (!node.isObject()) {
            throw invalid(key, "it must map each target field to a JSON pointer such as /customer/name");
        }
        node.fields().forEachRemaining(field -> {
            String fieldKey = key + "." + field.getKey();
            pointers.put(field.getKey(), pointer(fieldKey,
                    new TreeValue(fieldKey, field.getValue()).textFor(ConfigType.STRING)));
        });
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
