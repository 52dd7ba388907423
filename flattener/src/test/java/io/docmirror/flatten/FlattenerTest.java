package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static io.docmirror.flatten.TestingDocuments.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FlattenerTest {
    private static FlattenResult flatten(Flattener flattener, String json, long lsn) {
        return flattener.flatten(new SourceDocument("orders", "\"p\"", lsn, parse(json)));
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void withinTheSchemaADocumentThatFitsGivesTheRowsAndOneThatNeedsAChangeGivesNothingAndChangesNothing() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        flatten(flattener, "{\"id\":\"1\",\"qty\":2,\"items\":[{\"sku\":\"a\"}]}", 1);
        long version = flattener.schema().version();
        long walks = flattener.changingWalks();

        SourceDocument fits = new SourceDocument("orders", "\"p\"", 2,
                bytes("{\"id\":\"2\",\"qty\":5,\"items\":[{\"sku\":\"b\"},{\"sku\":\"c\"}]}"));
        FlattenResult within = flattener.flattenWithinSchema(fits).orElseThrow();
        assertThat(within.rows()).as("a root row and two item rows").hasSize(3);
        assertThat(within.rows().get(0).value("qty")).isEqualTo(5L);
        assertThat(within.schemaChanges()).isEmpty();

        for (String needsAChange : List.of("{\"id\":\"3\",\"color\":\"red\"}", "{\"id\":\"4\",\"qty\":2.5}",
                "{\"id\":\"5\",\"items\":[{\"sku\":\"d\",\"price\":1}]}", "{\"id\":\"6\",\"_lsn\":9}")) {
            assertThat(flattener.flattenWithinSchema(new SourceDocument("orders", "\"p\"", 3, bytes(needsAChange))))
                    .as("%s within the schema", needsAChange).isEmpty();
        }
        assertThat(flattener.schema().version()).as("the schema's version").isEqualTo(version);
        assertThat(flattener.changingWalks()).as("walks that changed the schema").isEqualTo(walks);
        assertThat(flattener.schema().root().findColumn("color")).isEmpty();
    }

    @Test
    void documentWithoutStringIdIsADeadLetterAndChangesNothing() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        long before = flattener.schema().version();

        FlattenResult result = flatten(flattener, "{\"id\":7,\"a\":1}", 3);

        assertThat(result.rows()).isEmpty();
        assertThat(result.deadLetter()).hasValue(new DeadLetter("orders", null, 3, "the document has no string id",
                "{\"id\":7,\"a\":1}"));
        assertThat(flattener.schema().version()).isEqualTo(before);
        assertThat(flattener.schema().root().findColumn("a")).isEmpty();
    }

    @Test
    void systemPropertiesThatContradictTheEventAreDeadLetters() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        assertThat(flatten(flattener, "{\"id\":\"1\",\"_lsn\":4}", 5).deadLetter().orElseThrow().reason())
                .isEqualTo("system property _lsn is 4 but the change event's LSN is 5");
        assertThat(flatten(flattener, "{\"id\":\"1\",\"_ts\":\"yesterday\"}", 5).deadLetter().orElseThrow().reason())
                .isEqualTo("system property _ts must be an integer (seconds since the epoch), not \"yesterday\"");
        assertThat(flatten(flattener, "{\"id\":\"1\",\"_etag\":5}", 5).deadLetter().orElseThrow().reason())
                .isEqualTo("system property _etag must be a string, not 5");
    }

    @Test
    void aDeadLetterReadFromBytesChangesNothingThoughItsBadSystemPropertyComesLast() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        String schemaBefore = SchemaCodec.toJson(flattener.schema());
        String json = "{\"id\":\"1\",\"fresh\":1,\"items\":[{\"sku\":\"a\"}],\"code\":[1,\"x\"],\"_ts\":\"yesterday\"}";

        FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", 5, bytes(json)));

        assertThat(result.deadLetter().orElseThrow().reason())
                .isEqualTo("system property _ts must be an integer (seconds since the epoch), not \"yesterday\"");
        assertThat(result.deadLetter().orElseThrow().id()).isEqualTo("1");
        assertThat(result.rows()).isEmpty();
        assertThat(SchemaCodec.toJson(flattener.schema())).isEqualTo(schemaBefore);
    }

    @Test
    void anArrayThatTurnsMixedAfterItsFirstElementsWentToAChildTableIsFlattenedAsItsTreeWouldBe() {
        List<String> documents = List.of(
                "{\"id\":\"1\",\"items\":[{\"sku\":\"a\"}]}",
                "{\"id\":\"2\",\"items\":[{\"sku\":\"b\"},{\"sku\":\"c\"},5]}",
                "{\"id\":\"3\",\"items\":[{\"sku\":\"d\"}]}");
        for (TypePolicy policy : TypePolicy.values()) {
            Flattener fromTrees = Flattener.create(FlattenerConfig.defaults("orders").withTypePolicy(policy));
            Flattener fromBytes = Flattener.create(FlattenerConfig.defaults("orders").withTypePolicy(policy));
            for (int index = 0; index < documents.size(); index++) {
                String json = documents.get(index);
                FlattenResult fromTree = flatten(fromTrees, json, index + 1);
                FlattenResult fromJson = fromBytes.flatten(new SourceDocument("orders", "\"p\"", index + 1, bytes(json)));
                assertThat(fromJson.rows()).as("%s, document %d", policy, index + 1).hasToString(fromTree.rows().toString());
                assertThat(fromJson.losses()).as("%s, document %d", policy, index + 1).isEqualTo(fromTree.losses());
            }
            assertThat(SchemaCodec.toJson(fromBytes.schema())).as("%s", policy)
                    .isEqualTo(SchemaCodec.toJson(fromTrees.schema()));
        }
    }

    @Test
    void anArrayOfArraysIsJsonTextOrUnderTheWellDefinedPolicyALoss() {
        byte[] json = bytes("{\"id\":\"1\",\"shape\":[[1e5,0.50],[2,-0]],\"after\":1}");

        FlattenResult lossless = Flattener.create(FlattenerConfig.defaults("orders"))
                .flatten(new SourceDocument("orders", "\"p\"", 1, json));
        FlattenResult wellDefined = Flattener.create(FlattenerConfig.defaults("orders")
                .withTypePolicy(TypePolicy.WELL_DEFINED)).flatten(new SourceDocument("orders", "\"p\"", 1, json));

        // -0 keeps its sign: only a BigDecimal's spelling of 1e5 is normalised, and that loses nothing.
        assertThat(lossless.rows().get(0).value("shape")).isEqualTo("[[1E+5,0.50],[2,-0]]");
        assertThat(lossless.rows().get(0).value("after")).isEqualTo(1L);
        assertThat(wellDefined.losses()).containsExactly(new ValueLoss(JsonPointer.compile("/shape"), "nothing", "ARRAY of mixed types"));
        assertThat(wellDefined.rows().get(0).value("after")).isEqualTo(1L);
    }

    @Test
    void malformedJsonNamesTheDocumentAndWhereItWentWrong() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        flattener.flatten(new SourceDocument("orders", "\"p\"", 1, bytes("{\"id\":\"1\",\"a\":[1]}")));
        String schemaBefore = SchemaCodec.toJson(flattener.schema());

        assertThatThrownBy(() -> flattener.flatten(new SourceDocument("orders", "\"p\"", 2, bytes("{\"id\":\"2\",\"a\":[1,}"))))
                .isInstanceOf(FlattenException.class)
                .hasMessageStartingWith("Cannot flatten document orders/2 at /a: not valid JSON: Unexpected character ('}' (code 125)): expected a value");
        assertThatThrownBy(() -> flattener.flatten(new SourceDocument("orders", "\"p\"", 3, bytes("[1]"))))
                .isInstanceOf(FlattenException.class)
                .hasMessage("Cannot flatten document orders/(id not read) at /: A document must be a JSON object");
        assertThat(SchemaCodec.toJson(flattener.schema())).isEqualTo(schemaBefore);
    }

    @Test
    void systemPropertiesFillSystemColumns() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));

        Row row = flatten(flattener, "{\"id\":\"1\",\"_rid\":\"r\",\"_etag\":\"\\\"e\\\"\",\"_ts\":17,\"_lsn\":5,\"a\":1}", 5)
                .rows().get(0);

        assertThat(List.of(row.value("id"), row.value("_pk"), row.value("_ts"), row.value("_lsn"),
                row.value("_etag"), row.value("_is_deleted"), row.value("_rid"), row.value("a")))
                .containsExactly("1", "\"p\"", 17L, 5L, "\"e\"", false, "r", 1L);
        assertThat(flattener.schema().root().columns()).extracting(Column::name)
                .containsExactly("id", "_pk", "_ts", "_lsn", "_etag", "_is_deleted", "_rid", "a");
    }

    @Test
    void errorNamesTheDocumentAndThePathOfTheValue() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        ObjectNode body = parse("{\"id\":\"42\",\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\",\"odd/name\":{}}]}");
        ((ObjectNode) body.get("items").get(1)).putPOJO("odd/name", new Object());

        assertThatThrownBy(() -> flattener.flatten(new SourceDocument("orders", "\"p\"", 1, body)))
                .isInstanceOf(FlattenException.class)
                .hasMessage("Cannot flatten document orders/42 at /items/1/odd~1name: Cannot flatten a "
                        + "VALUE_EMBEDDED_OBJECT token: not a JSON value")
                .extracting(e -> ((FlattenException) e).path()).isEqualTo("/items/1/odd~1name");
    }

    @Test
    void rowsMadeBeforeAWideningStayExactInTheWiderType() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        Row first = flatten(flattener, "{\"id\":\"1\",\"n\":9007199254740993}", 1).rows().get(0);

        FlattenResult second = flatten(flattener, "{\"id\":\"2\",\"n\":0.5}", 2);

        Column n = flattener.schema().root().findColumn("n").orElseThrow();
        assertThat(n.type()).isEqualTo(ColumnType.decimal(1));
        assertThat(second.schemaChanges()).containsExactly(
                new SchemaChange.ColumnWidened("orders", n, ColumnType.BIGINT));
        assertThat(new BigDecimal((Long) first.value("n")).setScale(1))
                .isEqualTo(new BigDecimal("9007199254740993.0"));
        assertThat(second.rows().get(0).value("n")).isEqualTo(new BigDecimal("0.5"));
    }

    @Test
    void columnLimitSendsNewPathsAndVariantsToOverflowAndKeepsEverything() {
        FlattenerConfig config = FlattenerConfig.defaults("orders").withColumnLimit(12);
        Flattener flattener = Flattener.create(config);

        FlattenResult first = flatten(flattener, "{\"id\":\"1\",\"a\":1,\"b\":2,\"c\":3,\"d\":{\"e\":4,\"f\":5}}", 1);
        FlattenResult second = flatten(flattener, "{\"id\":\"2\",\"a\":\"text\",\"b\":null}", 2);

        TableSchema root = flattener.schema().root();
        assertThat(root.columns()).extracting(Column::name)
                .containsExactly("id", "_pk", "_ts", "_lsn", "_etag", "_is_deleted", "_rid", "a", "b", "c", "_overflow",
                        "_empty");
        assertThat(first.rows().get(0).value("_overflow")).isEqualTo("{\"d\":{\"e\":4,\"f\":5}}");
        assertThat(second.rows().get(0).value("_overflow")).isEqualTo("{\"a\":\"text\"}");
        assertThat(flattener.schema().overflows()).extracting(overflow -> overflow.path().toString())
                .containsExactly("$.d", "$.a");
        assertThat(flattener.schema().conflicts()).singleElement()
                .satisfies(conflict -> assertThat(conflict.resolution()).isEqualTo("_overflow"));
        assertThat(TestingDocuments.sameDocument(parse("{\"id\":\"2\",\"a\":\"text\",\"b\":null,\"_lsn\":2}"),
                DocumentRebuilder.rebuild(second.rows()))).isTrue();
    }

    @Test
    void unpairedSurrogatesAreKeptAsEscapedJsonText() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        ObjectNode body = parse("{\"id\":\"1\",\"s\":\"ok\"}");
        body.put("s", "broken \uD800 text");
        body.put("key \uDC00", 1);

        FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", 1, body));

        assertThat(result.rows().get(0).value("s")).isEqualTo("\"broken \\uD800 text\"");
        assertThat(flattener.schema().root().findColumn("key \\udc00")).isPresent();
        assertThat(DocumentRebuilder.rebuild(result.rows()).get("s").textValue()).isEqualTo("broken \uD800 text");
    }

    @Test
    void unpairedSurrogatesReadFromBytesAreKeptAsEscapedJsonTextAndPairsAsText() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        byte[] json = bytes("{\"id\":\"1\",\"s\":\"broken \\ud800 text\",\"pair\":\"\\ud83d\\ude00\",\"cjk\":\"中文 😀\"}");

        FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", 1, json));

        assertThat(result.rows().get(0).value("s")).isEqualTo("\"broken \\uD800 text\"");
        assertThat(result.rows().get(0).value("pair")).isEqualTo("😀");
        assertThat(result.rows().get(0).value("cjk")).isEqualTo("中文 😀");
    }

    @Test
    void aListWithAnUnpairedSurrogateReadFromBytesIsKeptAsEscapedJsonTextAndOneWithPairsAsAList() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        byte[] json = bytes("{\"id\":\"1\",\"broken\":[\"ok\",\"\\ud800\"],\"paired\":[\"\\ud83d\\ude00\",\"x\"],"
                + "\"nested\":[[\"\\udc00\"]]}");

        FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", 1, json));

        assertThat(result.rows().get(0).value("broken")).isEqualTo("[\"ok\",\"\\uD800\"]");
        assertThat(result.rows().get(0).value("paired")).isEqualTo(List.of("😀", "x"));
        assertThat(result.rows().get(0).value("nested")).isEqualTo("[[\"\\uDC00\"]]");
    }

    @Test
    void surrogatesSpelledInBytesThatAreNotUtf8AreKeptAsEscapedJsonText() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        // "s": D800 as three bytes; "t": past U+10FFFF, which Jackson reads as two low surrogates.
        byte[] json = HexFormat.of().parseHex("7b226964223a2231222c2273223a2261eda08062222c2274223a22f490808063227d");

        FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"p\"", 1, json));

        assertThat(result.rows().get(0).value("s")).isEqualTo("\"a\\uD800b\"");
        assertThat(result.rows().get(0).value("t")).isEqualTo("\"\\uDC00\\uDC00c\"");
    }

    @Test
    void aSavedSchemaOnlyLoadsUnderTheConfigurationThatMadeIt() {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
        flatten(flattener, "{\"id\":\"1\",\"a\":1}", 1);
        String saved = SchemaCodec.toJson(flattener.schema());

        FlattenerConfig changed = FlattenerConfig.defaults("orders").withTypePolicy(TypePolicy.WELL_DEFINED);
        assertThatThrownBy(() -> SchemaCodec.fromJson(saved, changed))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Cannot load schema of orders: it was made with configuration");
    }

    @Test
    void configurationIsValidated() {
        FlattenerConfig defaults = FlattenerConfig.defaults("orders");
        assertThatThrownBy(() -> defaults.withColumnLimit(5))
                .hasMessage("Invalid value 5 for configuration flatten.column-limit: must be at least 10");
        assertThatThrownBy(() -> defaults.withMaxDepth(0))
                .hasMessage("Invalid value 0 for configuration flatten.max-depth: must be at least 1");
        assertThatThrownBy(() -> TypePolicy.fromConfigValue("strict"))
                .hasMessage("Unknown type policy 'strict': expected lossless, well-defined or full-fidelity");
        assertThatThrownBy(() -> PathOverride.fromConfigValue("explode"))
                .hasMessage("Unknown path override 'explode': expected json, child-table, flatten or drop");
    }

    @Test
    void jsonPathsPrintAndParseAnyName() {
        JsonPath path = JsonPath.ROOT.property("customer").property("address line 2").eachElement()
                .property("say \"hi\"").property("").property("a.b\n");

        assertThat(path.toString()).isEqualTo("$.customer[\"address line 2\"][*][\"say \\\"hi\\\"\"][\"\"][\"a.b\\u000a\"]");
        assertThat(JsonPath.parse(path.toString())).isEqualTo(path);
        assertThatThrownBy(() -> JsonPath.parse("customer.name"))
                .hasMessage("Cannot parse JSON path 'customer.name': it must start with $");
    }
}
