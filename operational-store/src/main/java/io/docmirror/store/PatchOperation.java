package io.docmirror.store;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * One step of a partial document update, as Cosmos DB's patch API has it. Paths are JSON Pointers
 * ({@code /a/b/0}, {@code ~1} for '/', {@code ~0} for '~'; {@code -} appends to an array for {@code add}).
 *
 * @param from the source path of {@code move}; absent otherwise
 * @param value the operand of {@code add}, {@code set}, {@code replace} and {@code incr}; absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PatchOperation(Type op, String path, String from, JsonNode value) {
    /** Cosmos DB applies at most 10 operations in one patch. */
    public static final int MAX_OPERATIONS = 10;

    public enum Type {
        /** Sets a property or inserts into an array at the index (or appends at {@code -}). */
        ADD,
        /** Sets a property whether or not it exists; in an array, replaces the element at the index. */
        SET,
        /** Replaces a value that must exist. */
        REPLACE,
        /** Removes a value that must exist. */
        REMOVE,
        /** Adds a number to a numeric value, creating it when missing. */
        INCR,
        /** Moves the value at {@code from} (which must exist) to {@code path}. */
        MOVE;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static Type fromWireName(String name) {
            for (Type type : values()) {
                if (type.wireName().equals(name)) {
                    return type;
                }
            }
            throw new IllegalArgumentException("unknown patch operation '" + name
                    + "', expected one of add, set, replace, remove, incr, move");
        }
    }

    public PatchOperation {
        requireNonNull(op, "op is null");
        requireNonNull(path, "path is null");
    }

    public static PatchOperation add(String path, JsonNode value) {
        return new PatchOperation(Type.ADD, path, null, value);
    }

    public static PatchOperation set(String path, JsonNode value) {
        return new PatchOperation(Type.SET, path, null, value);
    }

    public static PatchOperation replace(String path, JsonNode value) {
        return new PatchOperation(Type.REPLACE, path, null, value);
    }

    public static PatchOperation remove(String path) {
        return new PatchOperation(Type.REMOVE, path, null, null);
    }

    public static PatchOperation incr(String path, JsonNode value) {
        return new PatchOperation(Type.INCR, path, null, value);
    }

    public static PatchOperation move(String from, String path) {
        return new PatchOperation(Type.MOVE, path, from, null);
    }
}
