package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Copying an array's text as it is read gives exactly the text that writing its tree gives, whether the array comes
 * from bytes or from a tree, and leaves the parser just after the array. The scan of a document's bytes for
 * surrogates finds every spelling of one, wherever it lies in the bytes.
 */
class JsonTextTest {
    /** Longer than the scan's sixteen bytes at a time, so that every spelling is tried across each boundary. */
    private static final int OFFSETS = 40;

    @ParameterizedTest
    @ValueSource(strings = {
        "[[0, -0, 7, -7, 9007199254740993, 9223372036854775808, -9223372036854775809, 1e400]]",
        "[[0.1, 1.50, -0.0, -0.000, 0.000001, -0.000001, 0.0000001, 0.000000, 0.0000000, 123.0000000001]]",
        "[[1e5, 1E+5, 1.5e-3, -2E10, 1e308, 0e0, 12.5E1]]",
        "[[\"plain\", \"caf\\u00e9\", \"é\", \"\\/slash\", \"tab\\there\", \"\\u0001\", \"q\\\"b\\\\\", \"\\ud83d\\ude00\", \"😀\"]]",
        "[[\"an unpaired \\ud800 surrogate\"], 1.0]",
        "[[{\"a\":1,\"a\":[2.50,{\"b\":-0}],\"c\":{}}], {\"x\":0.0000001}]",
        "[[], [[]], null, true, false, 1, \"x\", [[[[1.10]]]]]",
        "[1, [2, 3]]",
        "[]"
    })
    void copiedArrayTextIsTheTextOfItsTree(String array) throws IOException {
        byte[] document = ("{\"a\":" + array + ",\"after\":1}").getBytes(StandardCharsets.UTF_8);
        String written = JsonText.write(JsonText.read(document).get("a"));

        assertThat(copyA(JsonText.parser(document))).isEqualTo(written);
        assertThat(copyA(JsonText.read(document).traverse())).isEqualTo(written);
    }

    /** Negative zeros and numbers no BigDecimal holds cheaply are written as they are spelled, from bytes or a tree. */
    @Test
    void numbersOnlyTheirTextHoldsAreWrittenAsSpelled() throws IOException {
        for (String array : new String[] {
            "[[-0,-0.0,-0.000,-0e5,-0E-2147483648]]",
            "[[1e-2147483648,1.5e-2147483647,-12E-2147483648]]",
            "[[1" + "0".repeat(1200) + ",-0." + "1".repeat(1200) + "],{\"n\":-0.0}]"}) {
            byte[] document = ("{\"a\":" + array + ",\"after\":1}").getBytes(StandardCharsets.UTF_8);

            assertThat(JsonText.write(JsonText.read(document).get("a"))).isEqualTo(array);
            assertThat(copyA(JsonText.parser(document))).isEqualTo(array);
            assertThat(copyA(JsonText.read(document).traverse())).isEqualTo(array);
        }
    }

    private static String copyA(JsonParser parser) throws IOException {
        assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
        assertThat(parser.nextFieldName()).isEqualTo("a");
        assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
        parser.nextToken();
        String text = JsonText.copyRestOfArray(parser, true);
        assertThat(parser.currentToken()).isEqualTo(JsonToken.END_ARRAY);
        assertThat(parser.nextFieldName()).isEqualTo("after");
        return text;
    }

    /** Spellings, as UTF-8 bytes in hex, that Jackson reads as strings holding surrogates (pairs or lone). */
    @ParameterizedTest
    @ValueSource(strings = {
        "5c7564383030", // the escape of D800
        "5c7544424646", // of DBFF, in upper case
        "5c7564633030", // of DC00
        "5c7544664666", // of DFFF, in mixed case
        "5c75643833645c7564653030", // of the pair D83D DE00
        "eda080", // U+D800 encoded as three bytes, which UTF-8 forbids
        "edbfbf", // U+DFFF likewise
        "f09f9880", // U+1F600, a pair
        "f4908080", // past U+10FFFF
        "f5808080", // a lead byte UTF-8 never uses
        "f0808080" // an overlong encoding
    })
    void everySpellingOfASurrogateIsFoundWhereverItLies(String spellingHex) throws IOException {
        byte[] spelling = HexFormat.of().parseHex(spellingHex);
        for (int offset = 0; offset < OFFSETS; offset++) {
            byte[] document = documentWithString(offset, spelling);

            assertThat(holdsSurrogate(JsonText.read(document).get("s").textValue())).isTrue();
            assertThat(JsonText.mayHoldSurrogates(document)).as("at offset %d", offset).isTrue();
        }
    }

    @Test
    void documentsWithoutSurrogatesNeedNoCheckWhateverEscapesAndCharactersTheyHold() throws IOException {
        for (String text : new String[] {"\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\uD7FF", "\\uE000", "é", "한", "中文",
                "\uD7FF", "\uE000", "\\ucafe", "\\u0d80"}) {
            for (int offset = 0; offset < OFFSETS; offset++) {
                byte[] document = documentWithString(offset, text.getBytes(StandardCharsets.UTF_8));

                assertThat(holdsSurrogate(JsonText.read(document).get("s").textValue())).isFalse();
                assertThat(JsonText.mayHoldSurrogates(document)).as("%s at offset %d", text, offset).isFalse();
            }
        }
    }

    /** {@code {"s":"xx…x<spelling>yy"}} with {@code offset} bytes before the spelling. */
    private static byte[] documentWithString(int offset, byte[] spelling) {
        ByteArrayOutputStream document = new ByteArrayOutputStream();
        document.writeBytes("{\"s\":\"".getBytes(StandardCharsets.UTF_8));
        document.writeBytes("x".repeat(offset).getBytes(StandardCharsets.UTF_8));
        document.writeBytes(spelling);
        document.writeBytes("yy\"}".getBytes(StandardCharsets.UTF_8));
        return document.toByteArray();
    }

    private static boolean holdsSurrogate(String text) {
        return text.chars().anyMatch(c -> Character.isSurrogate((char) c));
    }
}
