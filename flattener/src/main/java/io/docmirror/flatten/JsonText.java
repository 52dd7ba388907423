package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON text in JSON columns, {@code _empty} and {@code _overflow}: numbers written and read back exactly, and text
 * that is always valid UTF-8. (A string with an unpaired surrogate cannot be encoded as UTF-8; such text is
 * written with {@code \\uXXXX} escapes instead, which read back to the same string.)
 */
final class JsonText {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();
    private static final ObjectWriter ESCAPING_WRITER = MAPPER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);

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

    static boolean hasUnpairedSurrogate(String text) {
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
