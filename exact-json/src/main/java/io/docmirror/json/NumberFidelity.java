package io.docmirror.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Objects;

/**
 * What a tree keeps of a JSON number besides its exact value: the reader of the tree chooses
 * ({@link ExactTreeDeserializer#module}, {@link #numberNode}). Both choices keep every value exactly and the sign of
 * every zero. Integers are always Jackson's int, long or BigInteger nodes, which write JSON's one spelling of an
 * integer; numbers a BigDecimal cannot hold, or not cheaply, are always {@link LiteralNumberNode}s. The choice is
 * about the other decimals.
 */
public enum NumberFidelity {
    /**
     * Every number writes back with the characters it was written with: every number that is not an integer is kept
     * as its text, so {@code 1e2} stays {@code 1e2} and {@code 0.0000001} stays {@code 0.0000001}. For a store, which
     * gives back what it was given.
     */
    SPELLING,
    /**
     * Every number keeps its value: decimals are Jackson's exact BigDecimal nodes, which write {@code 1e2} as
     * {@code 1E+2}, and only a negative zero and the {@link NumberSpelling#TEXT_ONLY} numbers are kept as text. For
     * code that works with the values, which a BigDecimal node has parsed once and for all.
     */
    VALUE;

    /** Whether a number of this spelling is kept as its text, a {@link LiteralNumberNode}. */
    public boolean keepsText(NumberSpelling spelling) {
        return switch (this) {
            case SPELLING -> spelling != NumberSpelling.INTEGER;
            case VALUE -> !spelling.isParseable();
        };
    }

    /**
     * The node for a JSON number, as a tree read with this fidelity holds it.
     *
     * @throws IllegalArgumentException when the text is not a JSON number
     */
    public JsonNode numberNode(String text) {
        // Jackson's default factory keeps a BigDecimal as it is, trailing zeros and all.
        NumberSpelling spelling = NumberSpelling.of(Objects.requireNonNull(text, "text is null"));
        return numberNode(spelling, text, JsonNodeFactory.instance);
    }

    /** The node for a number of this spelling and text, which is known to be a JSON number. */
    JsonNode numberNode(NumberSpelling spelling, String text, JsonNodeFactory nodes) {
        if (keepsText(spelling)) {
            return LiteralNumberNode.ofParsed(text);
        }
        return spelling == NumberSpelling.DECIMAL ? nodes.numberNode(new BigDecimal(text)) : integerNode(text, nodes);
    }

    /** An int, long or BigInteger node, the narrowest that holds the integer, as Jackson's reader picks them. */
    private static JsonNode integerNode(String text, JsonNodeFactory nodes) {
        // Eighteen characters are at most 999,999,999,999,999,999: a long always holds them.
        if (text.length() <= 18) {
            long value = Long.parseLong(text);
            return value == (int) value ? nodes.numberNode((int) value) : nodes.numberNode(value);
        }
        BigInteger value = new BigInteger(text);
        return value.bitLength() < Long.SIZE ? nodes.numberNode(value.longValue()) : nodes.numberNode(value);
    }
}
