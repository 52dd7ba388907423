package io.docmirror.store.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.StoreJson;
import io.docmirror.store.internal.DocumentValidator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * How an imported document gets its {@code id}: as it is, from another property ({@code --id /path}: a string as is,
 * a number as its text, a MongoDB {@code {"$oid": …}} as its hex), or generated for documents without one
 * ({@code --generate-ids}). Generated ids are name-based UUIDs of the line number and the line's bytes, so importing
 * the same file again conflicts instead of duplicating.
 *
 * <p>The id is inserted as the first property; the rest of the line is kept byte for byte.
 */
public sealed interface IdAssignment {
    /**
     * @return the document with its id
     * @throws IllegalArgumentException naming the rule when the document cannot get an id
     */
    byte[] apply(byte[] document, long lineNumber);

    IdAssignment AS_IS = new AsIs();

    static IdAssignment fromPath(String pointer) {
        return new FromPath(com.fasterxml.jackson.core.JsonPointer.compile(pointer), pointer);
    }

    static IdAssignment generated() {
        return new Generated();
    }

    /** The documents keep their own ids. */
    final class AsIs implements IdAssignment {
        @Override
        public byte[] apply(byte[] document, long lineNumber) {
            return document;
        }
    }

    /** The id is taken from another property. */
    final class FromPath implements IdAssignment {
        private final com.fasterxml.jackson.core.JsonPointer pointer;
        private final String path;

        FromPath(com.fasterxml.jackson.core.JsonPointer pointer, String path) {
            this.pointer = pointer;
            this.path = path;
        }

        @Override
        public byte[] apply(byte[] document, long lineNumber) {
            JsonNode tree = parse(document);
            JsonNode value = tree.at(pointer);
            String id;
            if (value.isTextual()) {
                id = value.textValue();
            }
            else if (value.isNumber()) {
                id = numericId(value);
            }
            else if (value.isObject() && value.size() == 1 && value.path("$oid").isTextual()) {
                id = value.get("$oid").textValue();
            }
            else if (value.isMissingNode()) {
                throw new IllegalArgumentException("has no " + path + " to take the id from");
            }
            else {
                throw new IllegalArgumentException("has " + path + " = " + abbreviate(value.toString())
                        + ", which is not a string, a number or {\"$oid\": ...}");
            }
            JsonNode existing = tree.get("id");
            if (existing != null) {
                if (existing.isTextual() && existing.textValue().equals(id)) {
                    return document;
                }
                throw new IllegalArgumentException("has its own id " + abbreviate(existing.toString())
                        + ", which differs from " + path + " = '" + id + "'; refusing to overwrite it");
            }
            return withId(document, id);
        }
    }

    /**
     * A number's digits, without an exponent ({@code 1e2} is {@code 100}). A number whose digits could not make an id
     * (over {@value DocumentValidator#MAX_ID_BYTES} bytes, or no exact value at all) is refused before they are
     * written out, which for {@code 1e2147483647} would take two billion characters.
     */
    private static String numericId(JsonNode value) {
        String text = value.asText();
        if (value.isIntegralNumber()) {
            if (text.length() > DocumentValidator.MAX_ID_BYTES) {
                throw new IllegalArgumentException("has a number of " + text.length() + " characters to take the id "
                        + "from, over the id limit of " + DocumentValidator.MAX_ID_BYTES + " bytes");
            }
            return value.bigIntegerValue().toString();
        }
        BigDecimal decimal;
        try {
            decimal = value.decimalValue();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("has the number " + abbreviate(text) + " to take the id from, which "
                    + "has no exact decimal value", e);
        }
        long integerDigits = (long) decimal.precision() - decimal.scale();
        if (integerDigits > DocumentValidator.MAX_ID_BYTES || decimal.scale() > DocumentValidator.MAX_ID_BYTES) {
            throw new IllegalArgumentException("has the number " + abbreviate(text) + " to take the id from, whose "
                    + "digits are over the id limit of " + DocumentValidator.MAX_ID_BYTES + " bytes");
        }
        return decimal.toPlainString();
    }

    /** Documents without an id get a generated one. */
    final class Generated implements IdAssignment {
        @Override
        public byte[] apply(byte[] document, long lineNumber) {
            JsonNode tree = parse(document);
            if (tree.has("id")) {
                return document;
            }
            byte[] name = ByteBuffer.allocate(8 + document.length).putLong(lineNumber).put(document).array();
            return withId(document, UUID.nameUUIDFromBytes(name).toString());
        }
    }

    private static JsonNode parse(byte[] document) {
        JsonNode tree;
        try {
            tree = StoreJson.mapper().readTree(document);
        } catch (IOException e) {
            throw new IllegalArgumentException("is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("is not a JSON object");
        }
        return tree;
    }

    private static byte[] withId(byte[] document, String id) {
        int open = 0;
        while (open < document.length && document[open] != '{') {
            open++;
        }
        int next = open + 1;
        while (next < document.length && Character.isWhitespace(document[next])) {
            next++;
        }
        boolean empty = next < document.length && document[next] == '}';
        ByteArrayOutputStream out = new ByteArrayOutputStream(document.length + id.length() + 16);
        out.writeBytes(Arrays.copyOfRange(document, 0, open + 1));
        try {
            out.writeBytes(("\"id\":" + StoreJson.mapper().writeValueAsString(id) + (empty ? "" : ","))
                    .getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot encode id " + id, e);
        }
        out.writeBytes(Arrays.copyOfRange(document, open + 1, document.length));
        return out.toByteArray();
    }

    private static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }
}
