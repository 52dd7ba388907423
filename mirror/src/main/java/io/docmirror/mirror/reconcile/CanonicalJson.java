package io.docmirror.mirror.reconcile;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One spelling for every way of writing the same JSON document, so that a document as the store holds it and as the
 * mirror rebuilds it can be compared by text or by hash: object members sorted by name, numbers by their exact
 * value (1.50, 1.5 and 15E-1 alike, but never a rounded one), and a negative zero kept apart from zero.
 */
final class CanonicalJson {
    /** Read with the store's own limits, so that whatever the store accepted is read here too. */
    private static final JsonFactory FACTORY = StoreJson.mapper().getFactory();
    private static final JsonStringEncoder STRINGS = JsonStringEncoder.getInstance();
    /** Numbers whose power of ten is within this are spelled in plain digits. */
    private static final int PLAIN_SCALE_LIMIT = 64;

    private CanonicalJson() {
    }

    /** The canonical text of {@code json}, without the top-level members named in {@code skipped}. */
    static String of(byte[] json, Set<String> skipped) {
        try (JsonParser parser = FACTORY.createParser(json)) {
            parser.nextToken();
            StringBuilder out = new StringBuilder(json.length);
            write(parser, out, skipped);
            return out.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read a document to compare it: " + e.getMessage(), e);
        }
    }

    static String of(String json, Set<String> skipped) {
        return of(json.getBytes(StandardCharsets.UTF_8), skipped);
    }

    /** A 64-bit hash of a canonical text. */
    static long hash(String canonical) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            long hash = 0;
            for (int index = 0; index < Long.BYTES; index++) {
                hash = (hash << 8) | (digest[index] & 0xff);
            }
            return hash;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }

    private static void write(JsonParser parser, StringBuilder out, Set<String> skipped) throws IOException {
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT -> {
                // Members sorted by name; a repeated name keeps its last value, as the store's reader does.
                Map<String, String> members = new TreeMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    if (skipped.contains(name)) {
                        parser.skipChildren();
                        continue;
                    }
                    StringBuilder value = new StringBuilder();
                    write(parser, value, Set.of());
                    members.put(name, value.toString());
                }
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, String> member : members.entrySet()) {
                    out.append(first ? "" : ",").append('"').append(STRINGS.quoteAsString(member.getKey()))
                            .append("\":").append(member.getValue());
                    first = false;
                }
                out.append('}');
            }
            case START_ARRAY -> {
                out.append('[');
                boolean first = true;
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    out.append(first ? "" : ",");
                    write(parser, out, Set.of());
                    first = false;
                }
                out.append(']');
            }
            case VALUE_STRING -> out.append('"').append(STRINGS.quoteAsString(parser.getText())).append('"');
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> out.append(number(parser.getText()));
            case VALUE_TRUE, VALUE_FALSE, VALUE_NULL -> out.append(parser.getText());
            default -> throw new IOException("Unexpected " + token + " at " + parser.currentLocation());
        }
    }

    /**
     * A number's exact value, spelled one way: without trailing zeros, in plain digits or, for a power of ten beyond
     * {@link #PLAIN_SCALE_LIMIT}, BigDecimal's exponent form. A zero keeps
     * its sign (a double column holds -0.0). A number whose power of ten is beyond what a BigDecimal counts is
     * compared by its text.
     */
    static String number(String text) {
        BigDecimal value;
        try {
            value = new BigDecimal(text);
        } catch (NumberFormatException | ArithmeticException e) {
            return text.toLowerCase(Locale.ROOT);
        }
        if (value.signum() == 0) {
            return text.startsWith("-") ? "-0" : "0";
        }
        BigDecimal stripped = value.stripTrailingZeros();
        // Plain digits where that stays short (7.25, 100), the exponent form beyond (1E+400).
        return Math.abs(stripped.scale()) <= PLAIN_SCALE_LIMIT ? stripped.toPlainString() : stripped.toString();
    }
}
