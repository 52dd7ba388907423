package io.docmirror.flatten;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Saves a {@link ContainerSchema} as JSON and loads it back, with everything the flattener needs to go on making
 * the same decisions: tables, columns (ids, names, paths, types, and what widening columns have seen), claimed
 * structures, and the conflict and overflow tallies.
 */
public final class SchemaCodec {
    static final int FORMAT = 1;

    private SchemaCodec() {
    }

    public static String toJson(ContainerSchema schema) {
        return toJson(schema, true);
    }

    /**
     * The schema's structure (tables, columns, the structures paths claimed, the version) without its tallies of
     * conflicts and overflows: what a flattener starting part way through a sequence of documents needs to make the
     * decisions the schema would make, counting only what its own documents do ({@link ContainerSchema#addTallies}).
     */
    public static String structureToJson(ContainerSchema schema) {
        return toJson(schema, false);
    }

    private static String toJson(ContainerSchema schema, boolean tallies) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("format", FORMAT);
        root.set("config", configToJson(schema.config()));
        root.put("version", schema.version());
        ArrayNode tables = root.putArray("tables");
        for (TableSchema table : schema.tables()) {
            ObjectNode tableJson = tables.addObject();
            tableJson.put("name", table.name());
            tableJson.put("parent", table.parent().orElse(null));
            strings(tableJson.putArray("pathInParent"), table.pathInParent());
            ArrayNode columns = tableJson.putArray("columns");
            for (int index = 0; index < table.columnCount(); index++) {
                columns.add(columnToJson(table.column(index), slotOf(table, index)));
            }
            ArrayNode structures = tableJson.putArray("structures");
            collectStructures(table.rowNode, structures);
        }
        ArrayNode conflicts = root.putArray("conflicts");
        ArrayNode overflows = root.putArray("overflows");
        if (!tallies) {
            return root.toPrettyString();
        }
        for (Conflict conflict : schema.conflicts()) {
            ObjectNode json = conflicts.addObject();
            json.put("table", conflict.table());
            strings(json.putArray("path"), relativePath(schema, conflict.table(), conflict.path()));
            json.put("keptType", conflict.keptType());
            json.put("seenType", conflict.seenType());
            json.put("resolution", conflict.resolution());
            json.put("count", conflict.count());
            strings(json.putArray("sampleIds"), conflict.sampleIds());
        }
        for (Overflow overflow : schema.overflows()) {
            ObjectNode json = overflows.addObject();
            json.put("table", overflow.table());
            strings(json.putArray("path"), relativePath(schema, overflow.table(), overflow.path()));
            json.put("count", overflow.count());
            strings(json.putArray("sampleIds"), overflow.sampleIds());
        }
        return root.toPrettyString();
    }

    /**
     * Loads a saved schema under the configuration it was made with: for readers of what it made (a reconcile), not
     * for flattening on under today's configuration.
     *
     * @throws IllegalArgumentException if the JSON is not a saved schema
     */
    public static ContainerSchema fromJson(String text) {
        return fromJson(text, configFromJson(JsonText.read(text).get("config")));
    }

    /**
     * @throws IllegalArgumentException if the JSON is not a saved schema, or was made under another configuration
     *     (a changed policy or mapping needs a rebuild from history, not a reload)
     */
    public static ContainerSchema fromJson(String text, FlattenerConfig config) {
        JsonNode root = JsonText.read(text);
        if (root.path("format").asInt() != FORMAT) {
            throw new IllegalArgumentException("Cannot load schema: format " + root.path("format")
                    + " is not the supported format " + FORMAT);
        }
        FlattenerConfig saved = configFromJson(root.get("config"));
        if (!saved.equals(config)) {
            throw new IllegalArgumentException("Cannot load schema of " + config.rootTable()
                    + ": it was made with configuration " + saved + " but the configuration is now " + config
                    + "; run `docmirror rebuild --table " + config.rootTable() + "` to rebuild the tables from their "
                    + "history under the new configuration");
        }
        ContainerSchema schema = ContainerSchema.create(config);
        for (JsonNode tableJson : root.get("tables")) {
            String name = tableJson.get("name").textValue();
            TableSchema table;
            if (tableJson.get("parent").isNull()) {
                table = schema.root();
            } else {
                TableSchema parent = schema.findTable(tableJson.get("parent").textValue()).orElseThrow(
                        () -> new IllegalArgumentException("Cannot load schema: table " + name + " comes before its parent"));
                table = schema.restoreChildTable(parent, parent.node(strings(tableJson.get("pathInParent"))), name);
            }
            for (JsonNode columnJson : tableJson.get("columns")) {
                restoreColumn(table, columnJson, config.typePolicy());
            }
            for (JsonNode structure : tableJson.get("structures")) {
                table.node(strings(structure.get("path"))).claimedStructure = structure.get("kind").textValue();
            }
        }
        for (JsonNode json : root.get("conflicts")) {
            TableSchema table = schema.findTable(json.get("table").textValue()).orElseThrow();
            List<String> path = strings(json.get("path"));
            schema.restoreConflict(new Conflict(table.name(), table.jsonPath().properties(path),
                    json.get("keptType").textValue(), json.get("seenType").textValue(),
                    json.get("resolution").textValue(), json.get("count").longValue(), strings(json.get("sampleIds"))),
                    path);
        }
        for (JsonNode json : root.get("overflows")) {
            TableSchema table = schema.findTable(json.get("table").textValue()).orElseThrow();
            List<String> path = strings(json.get("path"));
            schema.restoreOverflow(new Overflow(table.name(), table.jsonPath().properties(path),
                    json.get("count").longValue(), strings(json.get("sampleIds"))), path);
        }
        schema.restoreVersion(root.get("version").longValue());
        return schema;
    }

    private static ObjectNode configToJson(FlattenerConfig config) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("rootTable", config.rootTable());
        json.put("typePolicy", config.typePolicy().configValue());
        json.put("maxDepth", config.maxDepth());
        json.put("columnLimit", config.columnLimit());
        json.put("detectTimestamps", config.detectTimestamps());
        ObjectNode overrides = json.putObject("overrides");
        config.overrides().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(JsonPath::toString)))
                .forEach(entry -> overrides.put(entry.getKey().toString(), entry.getValue().configValue()));
        return json;
    }

    private static FlattenerConfig configFromJson(JsonNode json) {
        Map<JsonPath, PathOverride> overrides = new LinkedHashMap<>();
        json.get("overrides").fields().forEachRemaining(entry -> overrides.put(JsonPath.parse(entry.getKey()),
                PathOverride.fromConfigValue(entry.getValue().textValue())));
        return new FlattenerConfig(json.get("rootTable").textValue(),
                TypePolicy.fromConfigValue(json.get("typePolicy").textValue()), json.get("maxDepth").intValue(),
                json.get("columnLimit").intValue(), json.get("detectTimestamps").booleanValue(), overrides);
    }

    private static ObjectNode columnToJson(Column column, Slot slot) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("id", column.id());
        json.put("name", column.name());
        strings(json.putArray("path"), column.path());
        json.put("role", column.role().catalogName());
        json.put("type", column.type().sql());
        if (column.tag() != null) {
            json.put("tag", column.tag().suffix());
        }
        if (slot != null && slot.facts != null) {
            ObjectNode facts = json.putObject("numbers");
            facts.put("allFitLong", slot.facts.allFitLong);
            facts.put("allExactInDouble", slot.facts.allExactInDouble);
            facts.put("allFitDecimal", slot.facts.allFitDecimal);
            facts.put("maxIntegerDigits", slot.facts.maxIntegerDigits);
            facts.put("maxScale", slot.facts.maxScale);
        }
        return json;
    }

    private static void restoreColumn(TableSchema table, JsonNode json, TypePolicy policy) {
        ColumnRole role = ColumnRole.valueOf(json.get("role").textValue().toUpperCase(java.util.Locale.ROOT));
        if (role == ColumnRole.SYSTEM) {
            return;
        }
        List<String> path = strings(json.get("path"));
        ValueTag tag = json.hasNonNull("tag") ? ValueTag.fromSuffix(json.get("tag").textValue()) : null;
        Column column = new Column(json.get("id").intValue(), json.get("name").textValue(),
                table.jsonPath().properties(path), path, role, ColumnType.parse(json.get("type").textValue()), tag);
        table.restoreColumn(column);
        if (tag == null) {
            return;
        }
        JsonNode numbers = json.get("numbers");
        NumberFacts facts = numbers == null ? null : new NumberFacts(tag == ValueTag.DECIMAL,
                numbers.get("allFitLong").booleanValue(), numbers.get("allExactInDouble").booleanValue(),
                numbers.get("allFitDecimal").booleanValue(), numbers.get("maxIntegerDigits").intValue(),
                numbers.get("maxScale").intValue());
        Slot slot = new Slot(table.columnCount() - 1, tag, facts, column);
        PathNode node = path.isEmpty() ? table.elementNode : table.node(path);
        if (role == ColumnRole.VARIANT || policy == TypePolicy.FULL_FIDELITY) {
            node.putVariant(slot);
        } else {
            node.primary = slot;
        }
    }

    private static Slot slotOf(TableSchema table, int columnIndex) {
        Column column = table.column(columnIndex);
        if (column.tag() == null) {
            return null;
        }
        PathNode node = column.path().isEmpty() ? table.elementNode : table.node(column.path());
        if (node.primary != null && node.primary.columnIndex == columnIndex) {
            return node.primary;
        }
        return node.variant(column.tag());
    }

    private static void collectStructures(PathNode node, ArrayNode out) {
        if (node.claimedStructure != null) {
            ObjectNode json = out.addObject();
            strings(json.putArray("path"), node.path);
            json.put("kind", node.claimedStructure);
        }
        List<PathNode> children = new ArrayList<>();
        node.children().forEach(children::add);
        children.sort(java.util.Comparator.comparing(child -> String.join("\u0000", child.path)));
        for (PathNode child : children) {
            collectStructures(child, out);
        }
    }

    private static List<String> relativePath(ContainerSchema schema, String tableName, JsonPath path) {
        int prefix = schema.findTable(tableName).orElseThrow().jsonPath().steps().size();
        return path.steps().subList(prefix, path.steps().size());
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>(array.size());
        array.forEach(value -> values.add(value.textValue()));
        return values;
    }
}
