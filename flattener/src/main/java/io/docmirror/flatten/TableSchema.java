package io.docmirror.flatten;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One table of a container's mirror: the root table (one row per document) or a child table (one row per element of
 * an array of objects). Columns keep their position and identity forever; new ones are appended.
 *
 * <p>A table never has more than the configured column limit: two places are kept for {@code _empty} and
 * {@code _overflow}, and a value that would need a column past the limit goes to {@code _overflow} instead.
 */
public final class TableSchema {
    private static final int MAX_CACHED_EMPTY_TEXTS = 1024;

    private final ContainerSchema container;
    private final String name;
    private final String parent;
    private final JsonPath jsonPath;
    private final List<String> pathInParent;
    private final List<Column> columns = new ArrayList<>();
    private final ColumnNamer namer = new ColumnNamer();
    private int nextColumnId;
    /**
     * {@code _empty} texts by value: rows of a table tend to repeat the same few shapes ({@code {"discounts":[]}}),
     * and writing JSON costs more than looking it up. Bounded; past the bound texts are simply written.
     */
    private final Map<JsonNode, String> emptyTexts = new HashMap<>();
    /**
     * How far into the columns the last row built for this table had a value: the room the next row starts with
     * (see {@link RowBuilder}).
     */
    private int lastRowWidth;
    private int emptyColumn = -1;
    private int overflowColumn = -1;
    final PathNode rowNode;
    /** A child row's element itself when it is not an object (child-table override on scalars). */
    final PathNode elementNode;
    /** The steps of {@code _row} from the parent row to this table's array ({@code items}, {@code ["a b"]}). */
    final String rowStep;

    TableSchema(ContainerSchema container, String name, String parent, JsonPath jsonPath, List<String> pathInParent) {
        this.container = requireNonNull(container, "container is null");
        this.name = requireNonNull(name, "name is null");
        this.parent = parent;
        this.jsonPath = requireNonNull(jsonPath, "jsonPath is null");
        this.pathInParent = List.copyOf(pathInParent);
        this.rowNode = new PathNode(List.of(), null, false);
        this.elementNode = new PathNode(List.of(), null, false);
        if (parent == null) {
            for (String property : SystemColumns.DOCUMENT_PROPERTIES) {
                rowNode.addChild(property, null, true);
            }
        }
        this.rowStep = JsonPath.relativeText(pathInParent);
        for (SystemColumn system : parent == null ? SystemColumn.ROOT : SystemColumn.CHILD) {
            restoreColumn(new Column(nextColumnId, system.columnName(), jsonPath, List.of(), ColumnRole.SYSTEM,
                    system.type(), null));
        }
    }

    public String name() {
        return name;
    }

    /** The parent table's name; empty for the root table. */
    public Optional<String> parent() {
        return Optional.ofNullable(parent);
    }

    public boolean isRoot() {
        return parent == null;
    }

    /** Where this table's rows come from: {@code $} for the root, {@code $.items[*]} for a child table. */
    public JsonPath jsonPath() {
        return jsonPath;
    }

    /** The property names from the parent's row to the array this table normalises; empty for the root table. */
    public List<String> pathInParent() {
        return pathInParent;
    }

    public List<Column> columns() {
        return Collections.unmodifiableList(columns);
    }

    public Optional<Column> findColumn(String columnName) {
        return columns.stream().filter(column -> column.name().equals(columnName)).findFirst();
    }

    Column column(int index) {
        return columns.get(index);
    }

    public int columnCount() {
        return columns.size();
    }

    int lastRowWidth() {
        return lastRowWidth;
    }

    void rowBuilt(int width) {
        lastRowWidth = width;
    }

    boolean hasRoomForValueColumn() {
        int reserved = (emptyColumn < 0 ? 1 : 0) + (overflowColumn < 0 ? 1 : 0);
        return columns.size() + reserved < container.config().columnLimit();
    }

    Column addValueColumn(List<String> path, String wantedName, ColumnRole role, ColumnType type, ValueTag tag) {
        if (!hasRoomForValueColumn()) {
            throw new IllegalStateException("Table " + name + " is at its column limit");
        }
        Column column = new Column(nextColumnId, namer.claim(wantedName), jsonPath.properties(path), path, role, type,
                tag);
        restoreColumn(column);
        container.record(new SchemaChange.ColumnAdded(name, column));
        return column;
    }

    boolean hasEmptyColumn() {
        return emptyColumn >= 0;
    }

    boolean hasOverflowColumn() {
        return overflowColumn >= 0;
    }

    int emptyColumnIndex() {
        if (emptyColumn < 0) {
            emptyColumn = addReservedColumn(SystemColumns.EMPTY, ColumnRole.EMPTY);
        }
        return emptyColumn;
    }

    int overflowColumnIndex() {
        if (overflowColumn < 0) {
            overflowColumn = addReservedColumn(SystemColumns.OVERFLOW, ColumnRole.OVERFLOW);
        }
        return overflowColumn;
    }

    private int addReservedColumn(String wantedName, ColumnRole role) {
        Column column = new Column(nextColumnId, namer.claim(wantedName), jsonPath, List.of(), role, ColumnType.JSON,
                null);
        restoreColumn(column);
        container.record(new SchemaChange.ColumnAdded(name, column));
        return columns.size() - 1;
    }

    String emptyText(JsonNode empty) {
        String text = emptyTexts.get(empty);
        if (text == null) {
            text = JsonText.write(empty);
            if (emptyTexts.size() < MAX_CACHED_EMPTY_TEXTS) {
                emptyTexts.put(empty.deepCopy(), text);
            }
        }
        return text;
    }

    void widen(int index, ColumnType wider) {
        Column before = columns.get(index);
        Column after = before.withType(wider);
        columns.set(index, after);
        container.record(new SchemaChange.ColumnWidened(name, after, before.type()));
    }

    /** Adds a column exactly as given, without recording a change: system columns and reloaded schemas. */
    void restoreColumn(Column column) {
        if (column.id() < nextColumnId) {
            throw new IllegalArgumentException("Column id " + column.id() + " of " + name + " is already used");
        }
        namer.reserve(column.name());
        columns.add(column);
        nextColumnId = column.id() + 1;
        if (column.role() == ColumnRole.EMPTY) {
            emptyColumn = columns.size() - 1;
        } else if (column.role() == ColumnRole.OVERFLOW) {
            overflowColumn = columns.size() - 1;
        }
    }

    /** The path node one property below {@code node}, made on first use with the override configured for it. */
    PathNode child(PathNode node, String propertyName) {
        PathNode child = node.findChild(propertyName);
        if (child == null) {
            JsonPath childPath = jsonPath.properties(node.path).property(propertyName);
            child = node.addChild(propertyName, container.config().overrides().get(childPath), false);
        }
        return child;
    }

    /** The path node at {@code path} below the row, made if missing (reloading a schema). */
    PathNode node(List<String> path) {
        PathNode node = rowNode;
        for (String propertyName : path) {
            node = child(node, propertyName);
        }
        return node;
    }

    @Override
    public String toString() {
        return name;
    }
}
