package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Seeded mutations of valid JSON request bodies, each apt to break one rule of the API: cut short, a value of another
 * type, null, a number beyond any range, the wrong shape, a property missing or unknown, a duplicate key, bytes that
 * are not UTF-8, nesting beyond the limit. A JSON document held in a string (a batch operation's {@code document})
 * is mutated inside the string as well. The same seed gives the same mutations.
 */
final class RequestMutations {
    private static final JsonNodeFactory NODES = StoreJson.mapper().getNodeFactory();
    /** Values of every JSON type, to put where another type belongs. */
    private static final List<JsonNode> OTHER_TYPES = List.of(TextNode.valueOf("x"), TextNode.valueOf(""),
            NODES.numberNode(0), NODES.numberNode(-1), StoreJson.numberNode("1.5"), NODES.booleanNode(true),
            NODES.objectNode(), NODES.arrayNode(), NODES.arrayNode().add(1).add("two"),
            NODES.objectNode().set("a", NODES.objectNode()));
    private static final List<String> HUGE_NUMBERS = List.of("1e2147483647", "1e-2147483648", "-1e999999999",
            "123456789012345678901234567890123456789", "9223372036854775808", "1" + "0".repeat(5000), "1e-10000000",
            "0.000000000000000000000000000000001", "-0");

    private final Random random;

    RequestMutations(long seed) {
        this.random = new Random(seed);
    }

    /** {@code count} mutations of the body. */
    List<byte[]> of(byte[] valid, int count) {
        List<byte[]> mutations = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            mutations.add(mutate(valid));
        }
        return mutations;
    }

    byte[] mutate(byte[] valid) {
        return switch (random.nextInt(11)) {
            case 0 -> Arrays.copyOf(valid, random.nextInt(Math.max(1, valid.length)));
            case 1 -> onTree(valid, tree -> replaceRandomValue(tree, OTHER_TYPES.get(random.nextInt(OTHER_TYPES.size()))));
            case 2 -> onTree(valid, tree -> replaceRandomValue(tree, NODES.nullNode()));
            case 3 -> onTree(valid, tree -> replaceRandomValue(tree,
                    StoreJson.numberNode(HUGE_NUMBERS.get(random.nextInt(HUGE_NUMBERS.size())))));
            case 4 -> wrongShape(valid);
            case 5 -> onTree(valid, this::removeRandomProperty);
            case 6 -> onTree(valid, tree -> randomObject(tree).put("surprise", 1));
            case 7 -> duplicateKey(valid);
            case 8 -> insert(valid, new byte[] {(byte) 0xFF, (byte) 0xC0, (byte) 0x80});
            case 9 -> onTree(valid, tree -> replaceRandomValue(tree, nested(200)));
            default -> mutateEmbeddedDocument(valid);
        };
    }

    private byte[] wrongShape(byte[] valid) {
        return switch (random.nextInt(4)) {
            case 0 -> concat("[", new String(valid, StandardCharsets.UTF_8), "]");
            case 1 -> bytes(random.nextBoolean() ? "\"operations\"" : "42");
            case 2 -> bytes("{\"operations\":{\"type\":\"create\"}}");
            default -> bytes("{\"operations\":[null,\"read\",7,[]]}");
        };
    }

    /** A string that holds a JSON object (a batch operation's document) mutated in place; else another mutation. */
    private byte[] mutateEmbeddedDocument(byte[] valid) {
        return onTree(valid, tree -> {
            List<TextNode> documents = new ArrayList<>();
            walk(tree, (parent, key) -> {
                JsonNode value = child(parent, key);
                if (value.isTextual() && value.textValue().startsWith("{")) {
                    documents.add((TextNode) value);
                }
            });
            if (documents.isEmpty()) {
                replaceRandomValue(tree, NODES.nullNode());
                return;
            }
            TextNode document = documents.get(random.nextInt(documents.size()));
            String mutated = new String(mutate(document.textValue().getBytes(StandardCharsets.UTF_8)),
                    StandardCharsets.UTF_8);
            walk(tree, (parent, key) -> {
                if (child(parent, key) == document) {
                    set(parent, key, TextNode.valueOf(mutated));
                }
            });
        });
    }

    private byte[] onTree(byte[] valid, Consumer<JsonNode> change) {
        JsonNode tree;
        try {
            tree = StoreJson.mapper().readTree(valid);
        }
        catch (IOException e) {
            return Arrays.copyOf(valid, valid.length / 2); // not JSON (NDJSON): cut it instead
        }
        if (tree == null || !tree.isContainerNode()) {
            return bytes("{}");
        }
        change.accept(tree);
        try {
            return StoreJson.mapper().writeValueAsBytes(tree);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void replaceRandomValue(JsonNode tree, JsonNode replacement) {
        List<Object[]> slots = new ArrayList<>();
        walk(tree, (parent, key) -> slots.add(new Object[] {parent, key}));
        if (slots.isEmpty()) {
            return;
        }
        Object[] slot = slots.get(random.nextInt(slots.size()));
        set((JsonNode) slot[0], slot[1], replacement);
    }

    private void removeRandomProperty(JsonNode tree) {
        ObjectNode object = randomObject(tree);
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        if (!names.isEmpty()) {
            object.remove(names.get(random.nextInt(names.size())));
        }
    }

    private ObjectNode randomObject(JsonNode tree) {
        List<ObjectNode> objects = new ArrayList<>();
        if (tree.isObject()) {
            objects.add((ObjectNode) tree);
        }
        walk(tree, (parent, key) -> {
            if (child(parent, key).isObject()) {
                objects.add((ObjectNode) child(parent, key));
            }
        });
        return objects.isEmpty() ? NODES.objectNode() : objects.get(random.nextInt(objects.size()));
    }

    /** Every value below the root, as (parent, property name or index). */
    private static void walk(JsonNode node, Slot slot) {
        if (node.isObject()) {
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                slot.visit(node, name);
                walk(node.get(name), slot);
            }
        }
        else if (node.isArray()) {
            for (int index = 0; index < node.size(); index++) {
                slot.visit(node, index);
                walk(node.get(index), slot);
            }
        }
    }

    private static JsonNode child(JsonNode parent, Object key) {
        return key instanceof String name ? parent.get(name) : parent.get((Integer) key);
    }

    private static void set(JsonNode parent, Object key, JsonNode value) {
        if (key instanceof String name) {
            ((ObjectNode) parent).set(name, value);
        }
        else {
            ((ArrayNode) parent).set((Integer) key, value);
        }
    }

    private byte[] duplicateKey(byte[] valid) {
        String text = new String(valid, StandardCharsets.UTF_8);
        int brace = text.indexOf('{');
        if (brace < 0) {
            return bytes("{\"a\":1,\"a\":2}");
        }
        int colon = text.indexOf(':', brace);
        String firstKey = colon < 0 ? "\"a\"" : text.substring(brace + 1, colon);
        return bytes(text.substring(0, brace + 1) + firstKey + ":null," + text.substring(brace + 1));
    }

    private byte[] insert(byte[] valid, byte[] inserted) {
        int at = random.nextInt(valid.length + 1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(valid, 0, at);
        out.writeBytes(inserted);
        out.write(valid, at, valid.length - at);
        return out.toByteArray();
    }

    private static JsonNode nested(int levels) {
        JsonNode node = NODES.numberNode(1);
        for (int level = 0; level < levels; level++) {
            node = NODES.arrayNode().add(node);
        }
        return node;
    }

    private static byte[] concat(String... parts) {
        return bytes(String.join("", parts));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Visits one value of a tree by its parent and its key there. */
    @FunctionalInterface
    private interface Slot {
        void visit(JsonNode parent, Object key);
    }
}
