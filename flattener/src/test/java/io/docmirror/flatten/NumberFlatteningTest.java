package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Numbers no numeric column holds are kept as their exact text and never dead-lettered, however long or whatever
 * their exponent, and a negative zero stays negative on every path: a DOUBLE column, a list, JSON text,
 * {@code _overflow} and the rebuilt document. The same holds whether a document is walked from its bytes or, after it
 * changed the schema, from its tree.
 */
class NumberFlatteningTest {
    private static final String LONG_INTEGER = "9".repeat(1500);

    private static SourceDocument bytes(long lsn, String json) {
        return new SourceDocument("orders", "\"p\"", lsn, json.getBytes(StandardCharsets.UTF_8));
    }

    /** Flattens two versions of the document: the first changes the schema (a walk of its tree), the second not. */
    private static List<FlattenResult> flattenFromTreeThenBytes(Flattener flattener, String json) {
        FlattenResult first = flattener.flatten(bytes(1, json));
        FlattenResult second = flattener.flatten(bytes(2, json));
        assertThat(first.schemaChanges()).isNotEmpty();
        assertThat(second.schemaChanges()).isEmpty();
        return List.of(first, second);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1e2147483647            | 1E+2147483647",
        "-1e2147483647           | -1E+2147483647",
        "1e-2147483648           | 1e-2147483648",
        "1.5e-2147483647         | 1.5e-2147483647",
        "-12e-2147483648         | -12e-2147483648",
        "1e400                   | 1E+400",
        "1e-10000000             | 1E-10000000"})
    void aNumberWhoseExponentNoColumnHoldsIsKeptAsExactText(String number, String literal) {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        for (FlattenResult result : flattenFromTreeThenBytes(flattener, "{\"id\":\"1\",\"n\":" + number + "}")) {
            assertThat(result.deadLetter()).isEmpty();
            assertThat(result.rows().get(0).value("n__number")).isEqualTo(literal);
            JsonNode rebuilt = DocumentRebuilder.rebuild(result.rows()).get("n");
            assertThat(rebuilt.toString()).isEqualTo(literal);
            assertThat(JsonText.read(number).toString()).isEqualTo(rebuilt.toString());
        }
        assertThat(flattener.schema().root().findColumn("n__number").orElseThrow().type())
                .isEqualTo(ColumnType.VARCHAR);
    }

    @Test
    void aNumberOfMoreThanAThousandDigitsIsKeptAsItsText() {
        String decimal = "-" + LONG_INTEGER + "." + LONG_INTEGER;
        String oneWithZeros = "1." + "0".repeat(1500);
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        for (FlattenResult result : flattenFromTreeThenBytes(flattener, "{\"id\":\"1\",\"i\":" + LONG_INTEGER
                + ",\"d\":" + decimal + ",\"z\":" + oneWithZeros + ",\"list\":[1," + LONG_INTEGER + "]}")) {
            Row row = result.rows().get(0);
            assertThat(List.of(row.value("i__number"), row.value("d__number"), row.value("z__number"),
                    row.value("list")))
                    .containsExactly(LONG_INTEGER, decimal, oneWithZeros, "[1," + LONG_INTEGER + "]");
            ObjectNode rebuilt = DocumentRebuilder.rebuild(result.rows());
            assertThat(rebuilt.get("i").toString()).isEqualTo(LONG_INTEGER);
            assertThat(rebuilt.get("d").toString()).isEqualTo(decimal);
            assertThat(rebuilt.get("list").toString()).isEqualTo("[1," + LONG_INTEGER + "]");
        }
    }

    @Test
    void extremeNumbersCostNoArithmetic() {
        String numbers = "[1e-10000000,1e10000000,1e2147483647,-1e-2147483647,1e-2147483648,1.5e-2147483647,"
                + "123456789.123456789e-999999999," + "7".repeat(100_000) + "]";
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (int document = 1; document <= 200; document++) {
                FlattenResult result = flattener.flatten(bytes(document, "{\"id\":\"" + document + "\",\"a\":"
                        + numbers.substring(1, numbers.indexOf(',')) + ",\"list\":" + numbers + ",\"n\":{\"x\":"
                        + numbers + "}}"));
                assertThat(result.deadLetter()).isEmpty();
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"-0.0", "-0", "-0.000", "-0e5", "-0E-2147483648"})
    void aNegativeZeroIsADoubleThatKeepsItsSign(String zero) {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        for (FlattenResult result : flattenFromTreeThenBytes(flattener, "{\"id\":\"1\",\"p\":" + zero + "}")) {
            assertNegativeZero(result.rows().get(0).value("p"));
            JsonNode rebuilt = DocumentRebuilder.rebuild(result.rows()).get("p");
            assertNegativeZero(rebuilt.doubleValue());
            assertThat(rebuilt.toString()).isEqualTo("-0.0");
        }
        assertThat(flattener.schema().root().findColumn("p").orElseThrow().type()).isEqualTo(ColumnType.DOUBLE);
    }

    @Test
    void aNegativeZeroInATreeKeepsItsSign() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        ObjectNode body = TestingDocuments.parse("{\"id\":\"1\"}").set("p", DoubleNode.valueOf(-0.0));

        FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", 1, body));

        assertNegativeZero(result.rows().get(0).value("p"));
    }

    @Test
    void aBigintColumnWidensToDoubleForANegativeZero() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        FlattenResult first = flattener.flatten(bytes(1, "{\"id\":\"1\",\"n\":7}"));

        FlattenResult second = flattener.flatten(bytes(2, "{\"id\":\"2\",\"n\":-0}"));

        Column n = flattener.schema().root().findColumn("n").orElseThrow();
        assertThat(n.type()).isEqualTo(ColumnType.DOUBLE);
        assertThat(second.schemaChanges())
                .containsExactly(new SchemaChange.ColumnWidened("orders", n, ColumnType.BIGINT));
        assertThat(first.rows().get(0).value("n")).isEqualTo(7L);
        assertNegativeZero(second.rows().get(0).value("n"));
    }

    @Test
    void aDecimalColumnCannotTakeANegativeZeroSoItGoesToADoubleVariantOrIsReportedLost() {
        Flattener lossless = Flattener.create(FlattenerConfig.defaults("orders"));
        Flattener wellDefined = Flattener.create(FlattenerConfig.defaults("orders")
                .withTypePolicy(TypePolicy.WELL_DEFINED));
        for (Flattener flattener : List.of(lossless, wellDefined)) {
            flattener.flatten(bytes(1, "{\"id\":\"1\",\"n\":1.000000000000000005}"));
        }

        FlattenResult variant = lossless.flatten(bytes(2, "{\"id\":\"2\",\"n\":-0.0}"));
        FlattenResult lost = wellDefined.flatten(bytes(2, "{\"id\":\"2\",\"n\":-0.0}"));

        assertThat(lossless.schema().root().findColumn("n").orElseThrow().type()).isEqualTo(ColumnType.decimal(18));
        assertNegativeZero(variant.rows().get(0).value("n__double"));
        assertNegativeZero(DocumentRebuilder.rebuild(variant.rows()).get("n").doubleValue());
        assertThat(lost.losses()).containsExactly(new ValueLoss(JsonPointer.compile("/n"), "DECIMAL(38,18)", "DOUBLE"));
    }

    @Test
    void aDoubleColumnThatTookANegativeZeroDoesNotBecomeDecimal() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        flattener.flatten(bytes(1, "{\"id\":\"1\",\"n\":-0.0}"));

        FlattenResult result = flattener.flatten(bytes(2, "{\"id\":\"2\",\"n\":1.000000000000000005}"));

        assertThat(flattener.schema().root().findColumn("n").orElseThrow().type()).isEqualTo(ColumnType.DOUBLE);
        assertThat(result.rows().get(0).value("n__decimal")).isEqualTo(new BigDecimal("1.000000000000000005"));
    }

    @Test
    void aNegativeZeroKeepsItsSignInListsJsonTextAndOverflow() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders").withColumnLimit(10));

        for (FlattenResult result : flattenFromTreeThenBytes(flattener,
                "{\"id\":\"1\",\"list\":[1,-0,2.5,-0.0],\"more\":{\"z\":-0.0,\"grid\":[[-0,-0.0]]}}")) {
            Row row = result.rows().get(0);
            List<?> list = (List<?>) row.value("list");
            assertThat(list).hasSize(4);
            assertThat(list.get(0)).isEqualTo(1.0);
            assertNegativeZero(list.get(1));
            assertThat(list.get(2)).isEqualTo(2.5);
            assertNegativeZero(list.get(3));
            assertThat(row.value("_overflow")).isEqualTo("{\"more\":{\"z\":-0.0,\"grid\":[[-0,-0.0]]}}");
            ObjectNode rebuilt = DocumentRebuilder.rebuild(result.rows());
            assertThat(rebuilt.get("list").toString()).isEqualTo("[1.0,-0.0,2.5,-0.0]");
            assertThat(rebuilt.get("more").toString()).isEqualTo("{\"z\":-0.0,\"grid\":[[-0,-0.0]]}");
        }
    }

    @Test
    void anArrayOfArraysKeepsNegativeZerosAndExtremeNumbersAsWritten() {
        FlattenResult result = Flattener.create(FlattenerConfig.defaults("orders")).flatten(bytes(1,
                "{\"id\":\"1\",\"grid\":[[-0,-0.0,-0e5],[1e-2147483648," + LONG_INTEGER + "]]}"));

        assertThat(result.rows().get(0).value("grid"))
                .isEqualTo("[[-0,-0.0,-0e5],[1e-2147483648," + LONG_INTEGER + "]]");
    }

    @Test
    void ordinaryNumbersAreTypedAsBefore() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        Row row = flattener.flatten(bytes(1, "{\"id\":\"1\",\"i\":42,\"d\":0.1,\"x\":1.000000000000000005,"
                + "\"z\":0,\"zd\":0.0,\"e\":1e2,\"big\":18446744073709551617}")).rows().get(0);

        assertThat(Arrays.asList(row.value("i"), row.value("d"), row.value("x"), row.value("z"), row.value("zd"),
                row.value("e"), row.value("big"))).containsExactly(42L, 0.1, new BigDecimal("1.000000000000000005"),
                0L, 0.0, 100.0, new BigDecimal("18446744073709551617"));
        assertThat(Double.doubleToRawLongBits((Double) row.value("zd"))).isZero();
    }

    private static void assertNegativeZero(Object value) {
        assertThat(value).isInstanceOf(Double.class);
        assertThat(Double.doubleToRawLongBits((Double) value)).as("the bits of %s", value)
                .isEqualTo(Double.doubleToRawLongBits(-0.0d));
    }
}
