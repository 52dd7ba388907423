package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One property path within a table's rows, in a tree that mirrors the documents' nesting. It holds the decisions
 * made for the path: its value column, its variant columns, the child table its arrays of objects go to, and (for
 * the well-defined policy) the first kind of value it saw.
 */
final class PathNode {
    /** Property names from the table's row to this path; empty for the row itself. */
    final List<String> path;
    final PathOverride override;
    Slot primary;
    TableSchema childTable;
    /** Well-defined policy: the structure that claimed this path first ({@code OBJECT}, {@code ARRAY OF OBJECTS}). */
    String claimedStructure;
    private Map<String, PathNode> children;
    private Map<ValueTag, Slot> variants;

    PathNode(List<String> path, PathOverride override) {
        this.path = List.copyOf(path);
        this.override = override;
    }

    PathNode findChild(String name) {
        return children == null ? null : children.get(name);
    }

    PathNode addChild(String name, PathOverride override) {
        if (children == null) {
            children = new HashMap<>();
        }
        List<String> childPath = new ArrayList<>(path.size() + 1);
        childPath.addAll(path);
        childPath.add(name);
        PathNode child = new PathNode(childPath, override);
        children.put(name, child);
        return child;
    }

    Iterable<PathNode> children() {
        return children == null ? List.of() : children.values();
    }

    Slot variant(ValueTag tag) {
        return variants == null ? null : variants.get(tag);
    }

    void putVariant(Slot slot) {
        if (variants == null) {
            variants = new EnumMap<>(ValueTag.class);
        }
        variants.put(slot.tag, slot);
    }
}
