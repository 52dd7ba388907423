package io.docmirror.flatten;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Flattens one document: walks it and the schema's path tree side by side, puts each value in its column (making
 * columns, variants and child tables as the policy says), and collects the rows.
 */
final class DocumentWalker {
    private static final String OBJECT = "OBJECT";
    private static final String ARRAY_OF_OBJECTS = "ARRAY OF OBJECTS";
    private static final String MIXED_ARRAY = "ARRAY of mixed types";

    private final ContainerSchema schema;
    private final FlattenerConfig config;
    private final SourceDocument document;
    private final String id;
    /** Boxed once: every row of the document carries it. */
    private final Long lsn;
    private final List<RowBuilder> rows = new ArrayList<>();
    private final List<ValueLoss> losses = new ArrayList<>();
    /** Property names from the current row down to the value being walked; rows below it continue the stack. */
    private final PositionStack position = new PositionStack();
    /** Every scalar value is read into this one leaf and placed before the next is read. */
    private final Leaf scalar = Leaf.forScalars();

    DocumentWalker(ContainerSchema schema, SourceDocument document, String id) {
        this.schema = schema;
        this.config = schema.config();
        this.document = document;
        this.id = id;
        this.lsn = document.lsn();
    }

    FlattenResult walk() {
        TableSchema root = schema.root();
        RowBuilder row = new RowBuilder(root, null, 0, "", position);
        rows.add(row);
        ObjectNode body = document.body();
        row.set(SystemColumns.ID, id);
        row.set(SystemColumns.PK, document.partitionKey());
        row.set(SystemColumns.LSN, lsn);
        row.set(SystemColumns.DELETED, false);
        walkProperties(body, root.rowNode, 0, row);

        List<Row> built = new ArrayList<>(rows.size());
        for (RowBuilder builder : rows) {
            built.add(builder.build());
        }
        return new FlattenResult(built, schema.drainChanges(), losses, java.util.Optional.empty());
    }

    private void walkProperties(ObjectNode object, PathNode node, int depth, RowBuilder row) {
        int position = 0;
        for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); position++) {
            Map.Entry<String, JsonNode> field = fields.next();
            String name = field.getKey();
            PathNode child = node.findChild(name, position);
            if (child != null && child.systemProperty) {
                fillSystemColumn(row, name, field.getValue());
                continue;
            }
            row.enter(name);
            try {
                if (child == null && !row.table.hasRoomForValueColumn()) {
                    // A path never seen before in a full table: it could never get a column, so keep it whole.
                    overflow(row, field.getValue());
                } else {
                    if (child == null) {
                        child = row.table.child(node, name);
                        node.remember(child, position);
                    }
                    walkValue(field.getValue(), child, depth + 1, row);
                }
            } catch (RuntimeException e) {
                throw FlattenException.wrapWithPath(e, name);
            } finally {
                row.exit();
            }
        }
    }

    /** The store's system properties: {@code Flattener} has checked their types; {@code _lsn} is the event's. */
    private static void fillSystemColumn(RowBuilder row, String name, JsonNode value) {
        switch (name) {
            case "_ts" -> row.set(SystemColumns.TS, value.longValue());
            case "_etag" -> row.set(SystemColumns.ETAG, value.textValue());
            case "_rid" -> row.set(SystemColumns.RID, value.textValue());
            default -> {
                // id and _lsn: the walker set them from the document's id and the event's LSN.
            }
        }
    }

    /** @param depth how many property names lie between the row and this value */
    private void walkValue(JsonNode value, PathNode node, int depth, RowBuilder row) {
        PathOverride override = node.override;
        if (override == PathOverride.DROP) {
            return;
        }
        switch (value.getNodeType()) {
            case NULL -> row.markEmpty(value);
            case OBJECT -> walkObject((ObjectNode) value, node, depth, row);
            case ARRAY -> walkArray((ArrayNode) value, node, depth, row);
            default -> placeLeaf(node, scalar.readScalar(value, config.detectTimestamps()), row);
        }
    }

    private void walkObject(ObjectNode object, PathNode node, int depth, RowBuilder row) {
        if (node.override == PathOverride.JSON) {
            placeLeaf(node, Leaf.ofJson(object), row);
        } else if (object.isEmpty()) {
            row.markEmpty(object);
        } else if (depth < config.maxDepth() || node.override == PathOverride.FLATTEN) {
            if (claimStructure(node, OBJECT, row)) {
                walkProperties(object, node, depth, row);
            }
        } else {
            placeLeaf(node, Leaf.ofJson(object), row);
        }
    }

    private void walkArray(ArrayNode array, PathNode node, int depth, RowBuilder row) {
        if (node.override == PathOverride.JSON) {
            placeLeaf(node, Leaf.ofJson(array), row);
            return;
        }
        if (array.isEmpty()) {
            if (node.primary != null && node.primary.tag.isList()) {
                row.set(node.primary.columnIndex, List.of());
            } else {
                row.markEmpty(array);
            }
            return;
        }
        boolean elementOfChildRow = node == row.table.elementNode;
        if (!elementOfChildRow && (node.override == PathOverride.CHILD_TABLE || allObjects(array))) {
            if (claimStructure(node, ARRAY_OF_OBJECTS, row)) {
                walkChildRows(array, node, row);
            }
            return;
        }
        Leaf list = Leaf.ofScalarArray(array, config.detectTimestamps());
        if (list != null) {
            placeLeaf(node, list, row);
        } else if (config.typePolicy() == TypePolicy.WELL_DEFINED) {
            // Cosmos DB: an array must hold one type to be well-defined.
            lose(row, node, keptType(row.table, node), MIXED_ARRAY);
        } else {
            placeLeaf(node, Leaf.ofJson(array), row);
        }
    }

    private void walkChildRows(ArrayNode array, PathNode node, RowBuilder parent) {
        TableSchema child = node.childTable != null ? node.childTable : schema.addChildTable(parent.table, node);
        String arrayPath = parent.rowPath.isEmpty() || child.rowStep.startsWith("[")
                ? parent.rowPath + child.rowStep
                : parent.rowPath + "." + child.rowStep;
        for (int index = 0; index < array.size(); index++) {
            RowBuilder row = new RowBuilder(child, parent, index, arrayPath + "[" + index + "]", position);
            rows.add(row);
            row.set(SystemColumns.CHILD_ID, id);
            row.set(SystemColumns.CHILD_PK, document.partitionKey());
            row.set(SystemColumns.CHILD_LSN, lsn);
            row.set(SystemColumns.CHILD_IDX, (long) index);
            row.set(SystemColumns.CHILD_ROW, row.rowPath);
            row.set(SystemColumns.CHILD_PARENT_ROW, parent.rowPath);
            JsonNode element = array.get(index);
            try {
                if (element.isObject()) {
                    walkProperties((ObjectNode) element, child.rowNode, 0, row);
                } else {
                    walkValue(element, child.elementNode, 0, row);
                }
            } catch (RuntimeException e) {
                throw FlattenException.wrapWithPath(e, Integer.toString(index));
            }
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

    /**
     * Well-defined policy: the first kind of value a path sees is the only one it keeps. The other policies give
     * objects, child tables and scalars their own columns, so they never clash.
     */
    private boolean claimStructure(PathNode node, String structure, RowBuilder row) {
        if (config.typePolicy() != TypePolicy.WELL_DEFINED) {
            return true;
        }
        if (node.claimedStructure == null && node.primary == null) {
            node.claimedStructure = structure;
            return true;
        }
        if (structure.equals(node.claimedStructure)) {
            return true;
        }
        lose(row, node, keptType(row.table, node), structure);
        return false;
    }

    private void placeLeaf(PathNode node, Leaf leaf, RowBuilder row) {
        if (config.typePolicy() == TypePolicy.FULL_FIDELITY) {
            placeInVariant(node, leaf, row);
            return;
        }
        ValueTag valueTag = leaf.valueColumnTag();
        if (node.primary == null && valueTag != null && node.claimedStructure == null) {
            if (!row.table.hasRoomForValueColumn()) {
                overflow(row, leaf.source);
                return;
            }
            node.primary = newSlot(row.table, node, valueTag, leaf, true);
        }
        Slot primary = node.primary;
        ColumnType type = primary != null && primary.tag == valueTag ? typeFor(primary, leaf) : null;
        if (type != null) {
            place(row, primary, leaf, type);
            return;
        }
        if (config.typePolicy() == TypePolicy.WELL_DEFINED) {
            lose(row, node, keptType(row.table, node), leaf.typeName());
            return;
        }
        String resolution = placeInVariant(node, leaf, row);
        schema.countConflict(row.table, node, keptType(row.table, node), leaf.typeName(), resolution, id);
    }

    /** Puts the leaf in the variant column of its own type and answers where it went. */
    private String placeInVariant(PathNode node, Leaf leaf, RowBuilder row) {
        Slot slot = node.variant(leaf.natural);
        if (slot == null) {
            if (!row.table.hasRoomForValueColumn()) {
                overflow(row, leaf.source);
                return SystemColumns.OVERFLOW;
            }
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
            case NUMERIC -> leaf.number != null && leaf.natural != ValueTag.NUMBER ? slot.facts.typeWith(leaf.number) : null;
            case DECIMAL -> leaf.natural == ValueTag.DECIMAL ? slot.facts.typeWith(leaf.number) : null;
            case NUMERIC_LIST -> {
                ColumnType element = leaf.natural == ValueTag.NUMERIC_LIST ? slot.facts.typeWith(leaf.elementFacts) : null;
                yield element == null ? null : slot.type.element().equals(element) ? slot.type : ColumnType.list(element);
            }
            default -> leaf.natural == slot.tag ? slot.type : null;
        };
    }

    /** Puts the leaf in the slot's column, widening the column to {@code type} first if needed. */
    private void place(RowBuilder row, Slot slot, Leaf leaf, ColumnType type) {
        if (type != slot.type && !type.equals(slot.type)) {
            row.table.widen(slot.columnIndex, type);
            slot.type = type;
        }
        switch (slot.tag) {
            case NUMERIC, DECIMAL -> {
                slot.facts.add(leaf.number);
                row.set(slot.columnIndex, leaf.number.valueAs(type));
            }
            case BIGINT, DOUBLE -> row.set(slot.columnIndex, leaf.number.valueAs(type));
            case NUMBER -> row.set(slot.columnIndex, leaf.number.literal());
            case NUMERIC_LIST -> {
                slot.facts.addAll(leaf.elementFacts);
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
        List<Object> values = new ArrayList<>(leaf.source.size());
        for (JsonNode element : leaf.source) {
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

    private static String keptType(TableSchema table, PathNode node) {
        if (node.primary != null) {
            return node.primary.type.sql();
        }
        return node.claimedStructure != null ? node.claimedStructure : "nothing";
    }

    private void lose(RowBuilder row, PathNode node, String keptType, String seenType) {
        schema.countConflict(row.table, node, keptType, seenType, "NULL", id);
        losses.add(new ValueLoss(row.pointer(), keptType, seenType));
    }

    private void overflow(RowBuilder row, JsonNode value) {
        row.overflow(value);
        schema.countOverflow(row.table, row.position(), id);
    }
}
