package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.docmirror.json.ExactTreeDeserializer;
import io.docmirror.json.LiteralNumberNode;
import io.docmirror.json.NumberFidelity;
import io.docmirror.json.NumberSpelling;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.CharBuffer;

/**
 * JSON text in JSON columns, {@code _empty} and {@code _overflow}: numbers written and read back exactly, and text
 * that is always valid UTF-8. (A string with an unpaired surrogate cannot be encoded as UTF-8; such text is
 * written with {@code \\uXXXX} escapes instead, which read back to the same string.)
 *
 * <p>Trees read here hold every number's exact value ({@link NumberFidelity#VALUE}): a negative zero keeps its sign,
 * and a number of any length or exponent is kept as its text.
 */
final class JsonText {
    /**
     * The store allows numbers as long as an item (2 MB); one beyond {@link NumberSpelling#MAX_PARSED_DIGITS} digits is
     * kept as text and never parsed, so its length costs no more than a string's.
     */
    private static final StreamReadConstraints NUMBERS_OF_ANY_LENGTH = StreamReadConstraints.builder()
            .maxNumberLength(Integer.MAX_VALUE)
            .build();
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(NUMBERS_OF_ANY_LENGTH)
                    .build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .addModule(ExactTreeDeserializer.module(NumberFidelity.VALUE))
            .build();
    private static final ObjectWriter ESCAPING_WRITER = MAPPER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
    private static final VarHandle EIGHT_BYTES = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final long EVERY_HIGH_BIT = 0x8080808080808080L;
    private static final long EVERY_LOW_BIT = 0x0101010101010101L;
    private static final long EVERY_BACKSLASH = 0x5C5C5C5C5C5C5C5CL;

    private JsonText() {
    }

    static String write(JsonNode node) {
        try {
            String text = MAPPER.writeValueAsString(node);
            return hasUnpairedSurrogate(text) ? ESCAPING_WRITER.writeValueAsString(node) : text;
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("Cannot write JSON text", e);
        }
    }

    /**
     * Copies the rest of an array as the JSON text {@link #write} makes of it, without building its tree: the
     * parser on the token after the array's {@code [}, and left on its {@code ]}. Numbers are copied as they are
     * spelled when that is how {@code write} spells them too; objects go through a tree, which keeps the last of
     * repeated names just as reading the whole array would.
     *
     * @param mayHoldSurrogates {@code false} when the document is known to hold no surrogate (see
     *     {@link #mayHoldSurrogates(byte[])}), so that the copied text needs no check for unpaired ones
     */
    static String copyRestOfArray(JsonParser parser, boolean mayHoldSurrogates) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = MAPPER.createGenerator(out)) {
            generator.writeStartArray();
            int depth = 1;
            for (JsonToken token = parser.currentToken(); ; token = parser.nextToken()) {
                switch (token) {
                    case START_ARRAY -> {
                        generator.writeStartArray();
                        depth++;
                    }
                    case END_ARRAY -> {
                        generator.writeEndArray();
                        depth--;
                    }
                    case VALUE_STRING -> generator.writeString(
                            parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> copyNumber(parser, generator);
                    case VALUE_TRUE, VALUE_FALSE, VALUE_NULL -> generator.copyCurrentEvent(parser);
                    default -> MAPPER.writeTree(generator, read(parser));
                }
                if (depth == 0) {
                    break;
                }
            }
        }
        String text = out.toString();
        return mayHoldSurrogates && hasUnpairedSurrogate(text) ? write(read(text)) : text;
    }

    private static void copyNumber(JsonParser parser, JsonGenerator generator) throws IOException {
        char[] chars = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        if (writtenAsSpelled(chars, offset, length)) {
            generator.writeNumber(chars, offset, length);
        } else {
            MAPPER.writeTree(generator, read(parser));
        }
    }

    /**
     * Whether {@link #write} spells the number as the text does: integers as plain digits, negative zeros and numbers
     * of more than {@link NumberSpelling#MAX_PARSED_DIGITS} digits as written ({@link LiteralNumberNode}), other
     * decimals as {@link java.math.BigDecimal#toString()} does. That is every number except those with an exponent or
     * with six or more zeros right after {@code 0.}, which {@code BigDecimal} spells with an exponent.
     */
    private static boolean writtenAsSpelled(char[] chars, int offset, int length) {
        int end = offset + length;
        int start = offset < end && chars[offset] == '-' ? offset + 1 : offset;
        for (int i = start; i < end; i++) {
            char c = chars[i];
            if ((c < '0' || c > '9') && c != '.') {
                // An exponent, or not a plain number at all (NaN in a tree, say).
                return false;
            }
        }
        if (start == end) {
            return false;
        }
        boolean startsWithZeroPoint = end - start >= 2 && chars[start] == '0' && chars[start + 1] == '.';
        if (startsWithZeroPoint) {
            int zeros = 0;
            for (int i = start + 2; i < end && chars[i] == '0'; i++) {
                zeros++;
            }
            return zeros < 6;
        }
        return true;
    }

    /**
     * Reads the rest of an array into a tree, the parser on {@code first}, the token after the array's {@code [},
     * and left on its {@code ]}.
     */
    static ArrayNode readRestOfArray(JsonParser parser, JsonToken first) throws IOException {
        ArrayNode array = nodes().arrayNode();
        for (JsonToken token = first; token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            array.add(read(parser));
        }
        return array;
    }

    /** Reads the value the parser is on (its first token) and leaves the parser on the value's last token. */
    static JsonNode read(JsonParser parser) throws IOException {
        return MAPPER.readTree(parser);
    }

    /** Makes nodes the way this class reads them: decimals exactly as written. */
    static JsonNodeFactory nodes() {
        return MAPPER.getNodeFactory();
    }

    static JsonParser parser(byte[] json) throws IOException {
        return MAPPER.createParser(json);
    }

    static JsonNode read(byte[] json) throws IOException {
        return MAPPER.readTree(json);
    }

    static JsonNode read(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("Cannot read JSON text: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Whether the string value the parser is on has an unpaired surrogate. Reads the parser's characters in place:
     * most strings have no character at or above the first surrogate, which one pass with no branch per character
     * shows; only the others get the character-by-character check.
     */
    static boolean stringHasUnpairedSurrogate(JsonParser parser) throws IOException {
        char[] chars = parser.getTextCharacters();
        int start = parser.getTextOffset();
        int end = start + parser.getTextLength();
        int union = 0;
        for (int i = start; i < end; i++) {
            union |= chars[i];
        }
        return union >= Character.MIN_SURROGATE && hasUnpairedSurrogate(CharBuffer.wrap(chars, start, end - start));
    }

    /**
     * Whether a string read from this UTF-8 JSON text may hold a surrogate, paired or not; {@code false} means none
     * does, so no string needs a check for unpaired ones. Three spellings give surrogates: the escapes
     * {@code \\uD800} to {@code \\uDFFF}; the bytes {@code ED A0 80} to {@code ED BF BF}, which UTF-8 forbids but
     * Jackson decodes; and four-byte sequences, which Jackson decodes to pairs when they are UTF-8 and to lone
     * surrogates when they are not. Most documents have no backslash and no byte above {@code 0x7F} at all, which
     * sixteen bytes at a time show; only sixteen bytes that hold one are looked at byte by byte. An escaped backslash
     * before {@code ud800} answers {@code true} too, which costs only the per-string check.
     */
    static boolean mayHoldSurrogates(byte[] json) {
        int start = 0;
        for (; start + 2 * Long.BYTES <= json.length; start += 2 * Long.BYTES) {
            long suspects = suspectBits((long) EIGHT_BYTES.get(json, start))
                    | suspectBits((long) EIGHT_BYTES.get(json, start + Long.BYTES));
            if (suspects != 0 && surrogateMayStartIn(json, start, start + 2 * Long.BYTES)) {
                return true;
            }
        }
        return surrogateMayStartIn(json, start, json.length);
    }

    /** For each of eight bytes, its high bit when it is a backslash or above {@code 0x7F}; no other bits. */
    private static long suspectBits(long bytes) {
        long xorBackslash = bytes ^ EVERY_BACKSLASH;
        // The second term has a byte's high bit set when the byte is zero, that is, was a backslash.
        return (bytes | ((xorBackslash - EVERY_LOW_BIT) & ~xorBackslash)) & EVERY_HIGH_BIT;
    }

    private static boolean surrogateMayStartIn(byte[] json, int start, int end) {
        for (int i = start; i < end; i++) {
            int current = json[i] & 0xFF;
            int next = i + 1 < json.length ? json[i + 1] & 0xFF : 0;
            if (current == '\\' && next == 'u' && i + 3 < json.length) {
                int first = json[i + 2] | 0x20;
                int second = json[i + 3] | 0x20;
                if (first == 'd' && (second == '8' || second == '9' || (second >= 'a' && second <= 'f'))) {
                    return true;
                }
            } else if ((current == 0xED && next >= 0xA0) || current >= 0xF0) {
                return true;
            }
        }
        return false;
    }

    static boolean hasUnpairedSurrogate(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < Character.MIN_SURROGATE) {
                // Nearly every character: one comparison, then on to the next.
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
