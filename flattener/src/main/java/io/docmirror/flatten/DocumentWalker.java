package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Flattens one document: walks its tokens and the schema's path tree side by side, puts each value in its column
 * (making columns, variants and child tables as the policy says), and collects the rows.
 *
 * <p>A walker is either <em>read-only</em> or may change the schema. The flattener walks every document read-only
 * first: most documents fit the schema as it is, and such a walk can stream the document's bytes, because nothing
 * it does needs undoing if the document turns out not to be mirrorable. When the document needs the schema to
 * change, or breaks a system property rule, the read-only walk gives up and the flattener walks the document again
 * from its tree, once its system properties have been checked.
 *
 * <p>Conflicts and overflows are counted when the walk ends, so that a walk that gives up or fails counts nothing.
 */
final class DocumentWalker {
    private static final String OBJECT = "OBJECT";
    private static final String ARRAY_OF_OBJECTS = "ARRAY OF OBJECTS";
    private static final String MIXED_ARRAY = "ARRAY of mixed types";

    private final ContainerSchema schema;
    private final FlattenerConfig config;
    private final SourceDocument document;
    private final boolean readOnly;
    /** Boxed once: every row of the document carries it. */
    private final Long lsn;
    /** The document's id, once its {@code id} property has been walked. */
    private String id;
    private final List<RowBuilder> rows = new ArrayList<>();
    private final List<ValueLoss> losses = new ArrayList<>();
    private final List<PendingConflict> conflicts = new ArrayList<>();
    private final List<PendingOverflow> overflows = new ArrayList<>();
    /** Every scalar value is read into this one leaf and placed before the next is read. */
    private final Leaf scalar = Leaf.forScalars();
    /** Whether the document's strings need checking for unpaired surrogates, which UTF-8 cannot encode. */
    private final boolean mayHoldSurrogates;

    private record PendingConflict(TableSchema table, PathNode node, String keptType, String seenType,
            String resolution) {
    }

    private record PendingOverflow(TableSchema table, List<String> path) {
    }

    /**
     * Thrown inside a read-only walk that cannot go on: the document needs the schema to change, breaks a system
     * property rule, or holds an array that turned out mixed after its first elements went to a child table.
     */
    private static final class SecondPassNeeded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private SecondPassNeeded() {
            super("the document needs a walk that may change the schema", null, false, false);
        }
    }

    /** @param readOnly whether the walk must leave the schema as it is (see the class comment) */
    DocumentWalker(ContainerSchema schema, SourceDocument document, boolean readOnly) {
        this.schema = schema;
        this.config = schema.config();
        this.document = document;
        this.readOnly = readOnly;
        this.lsn = document.lsn();
        this.mayHoldSurrogates = document.mayHoldSurrogates();
    }

    /** The document's id, if the walk got as far as reading it (for error messages). */
    String id() {
        return id;
    }

    /**
     * Walks the document the parser reads, from before its first token.
     *
     * @return the rows, or empty if a read-only walk gave up: the document needs a walk that may change the schema
     */
    Optional<FlattenResult> walk(JsonParser parser) throws IOException {
        try {
            return Optional.of(walkDocument(parser));
        } catch (SecondPassNeeded e) {
            if (!readOnly) {
                throw new IllegalStateException("A walk that may change the schema gave up: its document's system "
                        + "properties were not checked first", e);
            }
            return Optional.empty();
        }
    }

    private FlattenResult walkDocument(JsonParser parser) throws IOException {
        TableSchema root = schema.root();
        RowBuilder row = new RowBuilder(root, null, 0, "");
        rows.add(row);
        row.set(SystemColumns.PK, document.partitionKey());
        row.set(SystemColumns.LSN, lsn);
        row.set(SystemColumns.DELETED, false);
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("A document must be a JSON object");
        }
        String first = parser.nextFieldName();
        if (first != null) {
            walkProperties(parser, first, root.rowNode, 0, row);
        }
        if (id == null) {
            throw new SecondPassNeeded();
        }
        for (RowBuilder builder : rows) {
            if (builder.addsReservedColumn()) {
                changeSchema();
            }
        }
        return finish();
    }

    private FlattenResult finish() {
        for (PendingConflict conflict : conflicts) {
            schema.countConflict(conflict.table(), conflict.node(), conflict.keptType(), conflict.seenType(),
                    conflict.resolution(), id);
        }
        for (PendingOverflow overflow : overflows) {
            schema.countOverflow(overflow.table(), overflow.path(), id);
        }
        List<Row> built = new ArrayList<>(rows.size());
        for (RowBuilder builder : rows) {
            builder.set(builder.table.isRoot() ? SystemColumns.ID : SystemColumns.CHILD_ID, id);
            built.add(builder.build());
        }
        return new FlattenResult(built, schema.drainChanges(), losses, Optional.empty());
    }

    /** Walks an object's properties, the parser on the first one's name ({@code firstName}). */
    private void walkProperties(JsonParser parser, String firstName, PathNode node, int depth, RowBuilder row)
            throws IOException {
        int position = 0;
        for (String name = firstName; name != null; name = parser.nextFieldName(), position++) {
            JsonToken token = parser.nextToken();
            PathNode child = node.findChild(name, position);
            if (child != null && child.systemProperty) {
                fillSystemColumn(parser, row, name);
                continue;
            }
            try {
                if (child == null && !row.table.hasRoomForValueColumn()) {
                    // A path never seen before in a full table: it could never get a column, so keep it whole.
                    overflow(row, PathNode.childPath(node.path, name), JsonText.read(parser));
                } else {
                    if (child == null) {
                        changeSchema();
                        child = row.table.child(node, name);
                        node.remember(child, position);
                    }
                    walkValue(parser, token, child, depth + 1, row);
                }
            } catch (SecondPassNeeded e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                throw FlattenException.wrapWithPath(e, name);
            }
        }
    }

    /**
     * The store's system properties: they fill system columns. The second pass checked them before it began; the
     * read-only pass checks each as it comes, and gives up on one that breaks its rule.
     */
    private void fillSystemColumn(JsonParser parser, RowBuilder row, String name) throws IOException {
        if (SystemPropertyRules.problem(name, parser, document.lsn()) != null) {
            throw new SecondPassNeeded();
        }
        switch (name) {
            case "id" -> id = parser.getText();
            case "_ts" -> row.set(SystemColumns.TS, parser.getLongValue());
            case "_etag" -> row.set(SystemColumns.ETAG, parser.getText());
            case "_rid" -> row.set(SystemColumns.RID, parser.getText());
            default -> {
                // _lsn: the walker set it from the event's LSN, which the rule says it equals.
            }
        }
    }

    /**
     * @param token the value's first token, which the parser is on; when this returns, the parser is on the
     *     value's last token
     * @param depth how many property names lie between the row and this value
     */
    private void walkValue(JsonParser parser, JsonToken token, PathNode node, int depth, RowBuilder row)
            throws IOException {
        if (node.override == PathOverride.DROP) {
            parser.skipChildren();
            return;
        }
        switch (token) {
            case VALUE_NULL -> row.markEmpty(node.path, NullNode.getInstance());
            case START_OBJECT -> walkObject(parser, node, depth, row);
            case START_ARRAY -> walkArray(parser, node, row);
            default -> {
                Leaf leaf = scalar.readScalar(parser, token, config.detectTimestamps(), mayHoldSurrogates);
                placeLeaf(node, leaf, row);
            }
        }
    }

    private void walkObject(JsonParser parser, PathNode node, int depth, RowBuilder row) throws IOException {
        if (node.override == PathOverride.JSON) {
            placeLeaf(node, Leaf.ofJson(JsonText.read(parser)), row);
            return;
        }
        if (depth >= config.maxDepth() && node.override != PathOverride.FLATTEN) {
            JsonNode object = JsonText.read(parser);
            if (object.isEmpty()) {
                row.markEmpty(node.path, object);
            } else {
                placeLeaf(node, Leaf.ofJson(object), row);
            }
            return;
        }
        String first = parser.nextFieldName();
        if (first == null) {
            row.markEmpty(node.path, JsonNodeFactory.instance.objectNode());
        } else if (claimStructure(node, OBJECT, row)) {
            walkProperties(parser, first, node, depth, row);
        } else {
            skipRestOfObject(parser);
        }
    }

    private static void skipRestOfObject(JsonParser parser) throws IOException {
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_OBJECT; token = parser.nextToken()) {
            parser.skipChildren();
        }
    }

    private void walkArray(JsonParser parser, PathNode node, RowBuilder row) throws IOException {
        boolean elementOfChildRow = node == row.table.elementNode;
        if (readOnly && node.childTable != null && !node.seenMixedArray && !elementOfChildRow
                && node.override != PathOverride.JSON && holdsClaim(node, ARRAY_OF_OBJECTS)) {
            // Arrays at this path went to a child table before, so this one most likely does too: its elements
            // are walked as they are read, without building a tree.
            streamChildRows(parser, node, row);
            return;
        }
        JsonToken first = parser.nextToken();
        if (first == JsonToken.START_ARRAY && node.override != PathOverride.CHILD_TABLE) {
            // An array that begins with an array can be neither child rows nor a list, only JSON text (or a loss),
            // so it needs no tree.
            walkArrayOfArrays(parser, node, row);
        } else {
            // What the array becomes depends on all of its elements.
            walkWholeArray(JsonText.readRestOfArray(parser, first), node, row);
        }
    }

    /** The parser on the first element's {@code [}; see {@link #walkWholeArray} for the rules this follows. */
    private void walkArrayOfArrays(JsonParser parser, PathNode node, RowBuilder row) throws IOException {
        if (config.typePolicy() == TypePolicy.WELL_DEFINED && node.override != PathOverride.JSON) {
            for (JsonToken token = parser.currentToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
                parser.skipChildren();
            }
            lose(row, node, keptType(node), MIXED_ARRAY);
        } else {
            placeLeaf(node, Leaf.ofJsonText(JsonText.copyRestOfArray(parser, mayHoldSurrogates)), row);
        }
    }

    private void streamChildRows(JsonParser parser, PathNode node, RowBuilder parent) throws IOException {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.END_ARRAY) {
            walkEmptyArray(node, parent);
            return;
        }
        String arrayPath = arrayPath(parent, node.childTable);
        for (int index = 0; token != JsonToken.END_ARRAY; index++, token = parser.nextToken()) {
            if (token != JsonToken.START_OBJECT && node.override != PathOverride.CHILD_TABLE) {
                node.seenMixedArray = true;
                throw new SecondPassNeeded();
            }
            walkChildRow(parser, token, node.childTable, index, arrayPath, parent);
        }
    }

    private void walkWholeArray(ArrayNode array, PathNode node, RowBuilder row) throws IOException {
        if (node.override == PathOverride.JSON) {
            placeLeaf(node, Leaf.ofJson(array), row);
            return;
        }
        if (array.isEmpty()) {
            walkEmptyArray(node, row);
            return;
        }
        boolean elementOfChildRow = node == row.table.elementNode;
        if (!elementOfChildRow && (node.override == PathOverride.CHILD_TABLE || allObjects(array))) {
            if (claimStructure(node, ARRAY_OF_OBJECTS, row)) {
                walkChildRows(array, node, row);
            }
            return;
        }
        Leaf list = Leaf.ofScalarArray(array, config.detectTimestamps(), mayHoldSurrogates);
        if (list != null) {
            placeLeaf(node, list, row);
        } else if (config.typePolicy() == TypePolicy.WELL_DEFINED) {
            // Cosmos DB: an array must hold one type to be well-defined.
            lose(row, node, keptType(node), MIXED_ARRAY);
        } else {
            placeLeaf(node, Leaf.ofJson(array), row);
        }
    }

    private static void walkEmptyArray(PathNode node, RowBuilder row) {
        if (node.primary != null && node.primary.tag.isList()) {
            row.set(node.primary.columnIndex, List.of());
        } else {
            row.markEmpty(node.path, JsonNodeFactory.instance.arrayNode());
        }
    }

    private void walkChildRows(ArrayNode array, PathNode node, RowBuilder parent) throws IOException {
        if (node.childTable == null) {
            changeSchema();
            schema.addChildTable(parent.table, node);
        }
        String arrayPath = arrayPath(parent, node.childTable);
        for (int index = 0; index < array.size(); index++) {
            JsonParser element = array.get(index).traverse();
            walkChildRow(element, element.nextToken(), node.childTable, index, arrayPath, parent);
        }
    }

    private static String arrayPath(RowBuilder parent, TableSchema child) {
        return parent.rowPath.isEmpty() || child.rowStep.startsWith("[")
                ? parent.rowPath + child.rowStep
                : parent.rowPath + "." + child.rowStep;
    }

    /** Walks one element of an array that goes to a child table; {@code token} is the element's first. */
    private void walkChildRow(JsonParser parser, JsonToken token, TableSchema child, int index, String arrayPath,
            RowBuilder parent) throws IOException {
        RowBuilder row = new RowBuilder(child, parent, index, arrayPath + "[" + index + "]");
        rows.add(row);
        row.set(SystemColumns.CHILD_PK, document.partitionKey());
        row.set(SystemColumns.CHILD_LSN, lsn);
        row.set(SystemColumns.CHILD_IDX, (long) index);
        row.set(SystemColumns.CHILD_ROW, row.rowPath);
        row.set(SystemColumns.CHILD_PARENT_ROW, parent.rowPath);
        try {
            if (token == JsonToken.START_OBJECT) {
                String first = parser.nextFieldName();
                if (first != null) {
                    walkProperties(parser, first, child.rowNode, 0, row);
                }
            } else {
                walkValue(parser, token, child.elementNode, 0, row);
            }
        } catch (SecondPassNeeded e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw FlattenException.wrapWithPath(e, Integer.toString(index));
        }
    }

    private static boolean allObjects(ArrayNode array) {
        for (JsonNode element : array) {
            if (!element.isObject()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the path already holds what claiming {@code structure} for it would give. */
    private boolean holdsClaim(PathNode node, String structure) {
        return config.typePolicy() != TypePolicy.WELL_DEFINED || structure.equals(node.claimedStructure);
    }

    /**
     * Well-defined policy: the first kind of value a path sees is the only one it keeps. The other policies give
     * objects, child tables and scalars their own columns, so they never clash.
     */
    private boolean claimStructure(PathNode node, String structure, RowBuilder row) {
        if (holdsClaim(node, structure)) {
            return true;
        }
        if (node.claimedStructure == null && node.primary == null) {
            changeSchema();
            node.claimedStructure = structure;
            return true;
        }
        lose(row, node, keptType(node), structure);
        return false;
    }

    /** Called before every change to the schema, which only a walk that is not read-only may make. */
    private void changeSchema() {
        if (readOnly) {
            throw new SecondPassNeeded();
        }
    }

    private void placeLeaf(PathNode node, Leaf leaf, RowBuilder row) {
        if (config.typePolicy() == TypePolicy.FULL_FIDELITY) {
            placeInVariant(node, leaf, row);
            return;
        }
        ValueTag valueTag = leaf.valueColumnTag();
        if (node.primary == null && valueTag != null && node.claimedStructure == null) {
            if (!row.table.hasRoomForValueColumn()) {
                overflow(row, node.path, leaf.toNode());
                return;
            }
            changeSchema();
            node.primary = newSlot(row.table, node, valueTag, leaf, true);
        }
        Slot primary = node.primary;
        ColumnType type = primary != null && primary.tag == valueTag ? typeFor(primary, leaf) : null;
        if (type != null) {
            place(row, primary, leaf, type);
            return;
        }
        if (config.typePolicy() == TypePolicy.WELL_DEFINED) {
            lose(row, node, keptType(node), leaf.typeName());
            return;
        }
        String resolution = placeInVariant(node, leaf, row);
        conflicts.add(new PendingConflict(row.table, node, keptType(node), leaf.typeName(), resolution));
    }

    /** Puts the leaf in the variant column of its own type and answers where it went. */
    private String placeInVariant(PathNode node, Leaf leaf, RowBuilder row) {
        Slot slot = node.variant(leaf.natural);
        if (slot == null) {
            if (!row.table.hasRoomForValueColumn()) {
                overflow(row, node.path, leaf.toNode());
                return SystemColumns.OVERFLOW;
            }
            changeSchema();
            slot = newSlot(row.table, node, leaf.natural, leaf, false);
            node.putVariant(slot);
        }
        ColumnType type = typeFor(slot, leaf);
        if (type == null) {
            // A DECIMAL variant whose scale cannot grow further, or a numeric list no type holds with the earlier
            // ones: the exact literal text, or JSON text, always fits.
            return placeInVariant(node, leaf.natural == ValueTag.DECIMAL ? leaf.asNumberText() : leaf.asJson(), row);
        }
        place(row, slot, leaf, type);
        return slot.description;
    }

    private Slot newSlot(TableSchema table, PathNode node, ValueTag tag, Leaf leaf, boolean valueColumn) {
        String baseName = node.path.isEmpty() ? SystemColumns.ELEMENT_VALUE : ColumnNamer.baseName(node.path);
        boolean suffixed = !valueColumn || config.typePolicy() == TypePolicy.FULL_FIDELITY;
        String wantedName = suffixed ? baseName + ColumnNamer.SEPARATOR + tag.suffix() : baseName;
        ColumnRole role = !valueColumn && config.typePolicy() != TypePolicy.FULL_FIDELITY ? ColumnRole.VARIANT
                : tag.isList() ? ColumnRole.LIST
                : tag == ValueTag.JSON ? ColumnRole.JSON
                : ColumnRole.VALUE;
        NumberFacts facts = switch (tag) {
            case NUMERIC -> new NumberFacts(false);
            case DECIMAL -> new NumberFacts(true);
            case NUMERIC_LIST -> new NumberFacts(false);
            default -> null;
        };
        ColumnType type = switch (tag) {
            case NUMERIC -> facts.typeWith(leaf.number);
            case DECIMAL -> ColumnType.decimal(leaf.number.scale);
            case NUMBER -> ColumnType.VARCHAR;
            default -> leaf.naturalType();
        };
        Column column = table.addValueColumn(node.path, wantedName, role, type, tag);
        return new Slot(table.columnCount() - 1, tag, facts, column);
    }

    /** The type the slot's column needs to take the leaf exactly, or {@code null} if it cannot take it. */
    private static ColumnType typeFor(Slot slot, Leaf leaf) {
        return switch (slot.tag) {
            case NUMERIC -> leaf.number != null && leaf.natural != ValueTag.NUMBER
                    ? slot.facts.typeWith(leaf.number)
                    : null;
            case DECIMAL -> leaf.natural == ValueTag.DECIMAL ? slot.facts.typeWith(leaf.number) : null;
            case NUMERIC_LIST -> {
                ColumnType element = leaf.natural == ValueTag.NUMERIC_LIST
                        ? slot.facts.typeWith(leaf.elementFacts)
                        : null;
                yield element == null ? null
                        : slot.type.element().equals(element) ? slot.type
                        : ColumnType.list(element);
            }
            default -> leaf.natural == slot.tag ? slot.type : null;
        };
    }

    /** Puts the leaf in the slot's column, widening the column to {@code type} first if needed. */
    private void place(RowBuilder row, Slot slot, Leaf leaf, ColumnType type) {
        if (type != slot.type && !type.equals(slot.type)) {
            changeSchema();
            row.table.widen(slot.columnIndex, type);
            slot.type = type;
        }
        switch (slot.tag) {
            case NUMERIC, DECIMAL -> {
                if (!slot.facts.alreadyCover(leaf.number)) {
                    changeSchema();
                    slot.facts.add(leaf.number);
                }
                row.set(slot.columnIndex, leaf.number.valueAs(type));
            }
            case BIGINT, DOUBLE -> row.set(slot.columnIndex, leaf.number.valueAs(type));
            case NUMBER -> row.set(slot.columnIndex, leaf.number.literal());
            case NUMERIC_LIST -> {
                if (!slot.facts.alreadyCover(leaf.elementFacts)) {
                    changeSchema();
                    slot.facts.addAll(leaf.elementFacts);
                }
                row.set(slot.columnIndex, numericList(leaf, type.element()));
            }
            case BOOLEAN_LIST, VARCHAR_LIST, TIMESTAMP_LIST -> row.set(slot.columnIndex, scalarList(leaf));
            default -> row.set(slot.columnIndex, leaf.value);
        }
    }

    private static List<Object> numericList(Leaf leaf, ColumnType elementType) {
        List<Object> values = new ArrayList<>(leaf.elementShapes.length);
        for (NumberShape shape : leaf.elementShapes) {
            values.add(shape == null ? null : shape.valueAs(elementType));
        }
        return values;
    }

    private static List<Object> scalarList(Leaf leaf) {
        List<Object> values = new ArrayList<>(leaf.list().size());
        for (JsonNode element : leaf.list()) {
            if (element.isNull()) {
                values.add(null);
            } else if (leaf.natural == ValueTag.BOOLEAN_LIST) {
                values.add(element.booleanValue());
            } else if (leaf.natural == ValueTag.TIMESTAMP_LIST) {
                values.add(Instant.parse(element.textValue()));
            } else {
                values.add(element.textValue());
            }
        }
        return values;
    }

    private static String keptType(PathNode node) {
        if (node.primary != null) {
            return node.primary.type.sql();
        }
        return node.claimedStructure != null ? node.claimedStructure : "nothing";
    }

    private void lose(RowBuilder row, PathNode node, String keptType, String seenType) {
        conflicts.add(new PendingConflict(row.table, node, keptType, seenType, "NULL"));
        losses.add(new ValueLoss(row.pointer(node.path), keptType, seenType));
    }

    /** @param path the value's property names from the row */
    private void overflow(RowBuilder row, List<String> path, JsonNode value) {
        row.overflow(path, value);
        overflows.add(new PendingOverflow(row.table, path));
    }
}
