package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.Arrays;
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
    private static final PathNode[] NO_CHILDREN = new PathNode[0];

    /** Property names from the table's row to this path; empty for the row itself. */
    final List<String> path;
    /** The last property name of the path ({@code null} for the row itself). */
    final String name;
    /** A store system property at a document's root ({@code id}, {@code _ts}, ...): it fills a system column. */
    final boolean systemProperty;
    final PathOverride override;
    Slot primary;
    TableSchema childTable;
    /** Well-defined policy: the structure that claimed this path first ({@code OBJECT}, {@code ARRAY OF OBJECTS}). */
    String claimedStructure;
    /**
     * Whether an array at this path held objects and other values: a hint that arrays here are better read whole
     * before they are walked. Only speed depends on it, so a read-only walk may set it.
     */
    boolean seenMixedArray;
    private Map<String, PathNode> children;
    /**
     * The children in the order the last object at this path listed them. Documents of one container mostly list
     * their properties in the same order, so the i-th property is usually the i-th child seen last time: a reference
     * comparison instead of a hash lookup.
     */
    private PathNode[] lastOrder = NO_CHILDREN;
    private Map<ValueTag, Slot> variants;
    private List<Tally> conflictTallies = List.of();

    PathNode(List<String> path, PathOverride override, boolean systemProperty) {
        this.path = List.copyOf(path);
        this.name = path.isEmpty() ? null : path.get(path.size() - 1);
        this.override = override;
        this.systemProperty = systemProperty;
    }

    /** The child named {@code propertyName}, the {@code position}-th property of the object being walked. */
    PathNode findChild(String propertyName, int position) {
        if (position < lastOrder.length) {
            PathNode guess = lastOrder[position];
            if (guess != null && (guess.name == propertyName || guess.name.equals(propertyName))) {
                return guess;
            }
        }
        PathNode child = children == null ? null : children.get(propertyName);
        if (child != null) {
            remember(child, position);
        }
        return child;
    }

    PathNode findChild(String propertyName) {
        return children == null ? null : children.get(propertyName);
    }

    PathNode addChild(String propertyName, PathOverride override, boolean systemProperty) {
        if (children == null) {
            children = new HashMap<>();
        }
        PathNode child = new PathNode(childPath(path, propertyName), override, systemProperty);
        children.put(propertyName, child);
        return child;
    }

    /** The path of property {@code propertyName} of the object at {@code path}. */
    static List<String> childPath(List<String> path, String propertyName) {
        List<String> childPath = new ArrayList<>(path.size() + 1);
        childPath.addAll(path);
        childPath.add(propertyName);
        return List.copyOf(childPath);
    }

    void remember(PathNode child, int position) {
        if (position >= lastOrder.length) {
            lastOrder = Arrays.copyOf(lastOrder, Math.max(position + 1, lastOrder.length * 2));
        }
        lastOrder[position] = child;
    }

    Iterable<PathNode> children() {
        return children == null ? List.of() : children.values();
    }

    Tally findConflictTally(String keptType, String seenType, String resolution) {
        for (Tally tally : conflictTallies) {
            if (tally.describes(keptType, seenType, resolution)) {
                return tally;
            }
        }
        return null;
    }

    void addConflictTally(Tally tally) {
        if (conflictTallies.isEmpty()) {
            conflictTallies = new ArrayList<>(2);
        }
        conflictTallies.add(tally);
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
