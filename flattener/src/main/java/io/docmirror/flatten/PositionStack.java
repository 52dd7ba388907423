package io.docmirror.flatten;

import java.util.Arrays;
import java.util.List;

/**
 * The property names from the row being filled down to the value being walked. One stack serves all rows of a
 * document: a child row's names continue above its parent's, from the depth the child row started at.
 */
final class PositionStack {
    private String[] names = new String[16];
    private int size;

    void push(String name) {
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
        }
        names[size++] = name;
    }

    void pop() {
        names[--size] = null;
    }

    int size() {
        return size;
    }

    String get(int index) {
        return names[index];
    }

    /** The names from {@code from} to the top. */
    List<String> copyFrom(int from) {
        return List.of(Arrays.copyOfRange(names, from, size));
    }
}
