package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Copying an array's text as it is read gives exactly the text that writing its tree gives, whether the array comes
 * from bytes or from a tree, and leaves the parser just after the array.
 */
class JsonTextTest {
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

    private static String copyA(JsonParser parser) throws IOException {
        assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
        assertThat(parser.nextFieldName()).isEqualTo("a");
        assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
        parser.nextToken();
        String text = JsonText.copyRestOfArray(parser);
        assertThat(parser.currentToken()).isEqualTo(JsonToken.END_ARRAY);
        assertThat(parser.nextFieldName()).isEqualTo("after");
        return text;
    }
}
