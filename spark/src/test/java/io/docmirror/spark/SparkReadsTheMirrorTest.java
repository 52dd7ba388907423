package io.docmirror.spark;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Apache Spark, with Iceberg's Spark runtime and configured as README shows, reads every table of a mirror whole and
 * gets what the SQL endpoint's views give: the same columns, and the same rows with the same values. The mirror
 * holds child tables two deep, every kind of value and column the flattener makes, a table past the column limit
 * ({@code _overflow}), and documents replaced and emptied after their first batch (deletion vectors). docmirror runs
 * as the user runs it, {@code ./docmirror} in processes of its own: this JVM holds only Spark.
 */
@Tag("slow")
class SparkReadsTheMirrorTest {
    /** Reads numbers as written, digit for digit, so that two spellings compare equal only when their values do. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();
    private static final List<String> CONTAINERS = List.of("nobel", "kinds", "wide");
    /**
     * Every kind of value and column the flattener makes: conflicting types (variant columns), exact decimals, a
     * double, numbers no type holds ({@code __number}), lists, JSON text, explicit nulls and empties ({@code _empty}),
     * names SQL and Spark must quote.
     */
    private static final String KINDS = """
            {"id":"k1","pk":"a","code":7,"price":12.345678901234567890123,"ratio":0.1,"tags":["x","y"],"n":[1,2]}
            {"id":"k2","pk":"a","code":"seven","price":3,"ratio":1e300,"huge":1e400,"mixed":[1,"a",null],"nil":null}
            {"id":"k3","pk":"b","code":true,"nested":{"deep":{"er":[[1,2],[3]]}},"empty":{},"none":[],"a.b":1}
            {"id":"k4","pk":"b","lines":[{"sku":"A","qty":1,"parts":[{"n":1},{"n":2.5}]},{"sku":"B","qty":2}]}
            {"id":"k5","pk":"c","Größe":"XL","say \\"hi\\"":"quoted","select":"keyword","when":"2024-01-02T03:04:05Z"}
            """;

    @TempDir
    static Path dir;
    private static SparkSession spark;

    @BeforeAll
    static void mirrorDatasetsAndStartSpark() throws Exception {
        load("nobel", "/id", dataset("nobel_laureates.jsonl"));
        load("kinds", "/pk", Files.writeString(dir.resolve("kinds.jsonl"), KINDS));
        load("wide", "/id", Files.writeString(dir.resolve("wide.jsonl"), wideDocuments()));
        DocmirrorProcess.run(dir, "mirror", "sync", "--data", dir.toString());
        // Changes after the first batch: the replaced rows are deleted by deletion vectors.
        load("nobel", "/id", Files.writeString(dir.resolve("changes.jsonl"), """
                {"id":"1","firstname":"Wilhelm","prizes":[{"year":"1901","category":"physics"}]}
                {"id":"2","surname":"changed","prizes":[]}
                """), "--upsert");
        DocmirrorProcess.run(dir, "mirror", "sync", "--data", dir.toString());

        Path mirror = dir.resolve("mirror");
        spark = SparkSession.builder().master("local[2]").appName("docmirror-spark-test")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.datetime.java8API.enabled", "true")
                .config("spark.sql.catalog.docmirror", "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog.docmirror.type", "jdbc")
                .config("spark.sql.catalog.docmirror.uri", "jdbc:sqlite:" + mirror.resolve("catalog.db"))
                .config("spark.sql.catalog.docmirror.warehouse", mirror.resolve("warehouse").toUri().toString())
                .getOrCreate();
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void everyTableReadsWholeAndAsTheSqlEndpointServesIt() {
        List<String> compared = new ArrayList<>();
        for (String container : CONTAINERS) {
            for (Row listed : spark.sql("SHOW TABLES IN docmirror." + container).collectAsList()) {
                String table = listed.getString(listed.fieldIndex("tableName"));
                Dataset<Row> rows = spark.table("docmirror." + container + ".`" + table + "`");
                List<String> columns = Arrays.stream(rows.schema().fields()).map(StructField::name).toList();
                List<String> sparkRows = rows.collectAsList().stream().map(row -> canonical(json(columns, row)))
                        .sorted().toList();

                List<String> sqlRows = DocmirrorProcess.run(dir, "sql", "--data", dir.toString(), "--format",
                        "jsonl", "SELECT * FROM \"" + table + "\"").lines().map(SparkReadsTheMirrorTest::canonical).sorted()
                        .toList();
                if (!sqlRows.isEmpty()) {
                    assertThat(names(sqlRows.get(0))).as("columns of %s", table).isEqualTo(columns);
                }
                assertThat(sparkRows).as("rows of %s: %s", table, firstDifference(sparkRows, sqlRows))
                        .hasSize(sqlRows.size()).isEqualTo(sqlRows);
                compared.add(table + " (" + sparkRows.size() + " rows, " + columns.size() + " columns)");
            }
        }
        System.out.println("Spark and the SQL endpoint agree on: " + String.join(", ", compared));
        assertThat(compared).anyMatch(table -> table.startsWith("nobel__prizes__affiliations "))
                .anyMatch(table -> table.startsWith("nobel_history "))
                .anyMatch(table -> table.startsWith("kinds__lines__parts "))
                .anyMatch(table -> table.startsWith("wide "));
        assertThat(spark.sql("SELECT id, firstname, surname FROM docmirror.nobel.nobel WHERE id IN ('1', '2')")
                .collectAsList().stream().map(Row::toString).sorted())
                .containsExactly("[1,Wilhelm,null]", "[2,null,changed]");
    }

    /** A copy of one of the repository's datasets, so that nothing is written beside the original. */
    private static Path dataset(String name) throws IOException {
        return Files.copy(Path.of("..", "testdata", name), dir.resolve(name));
    }

    private static void load(String container, String partitionKey, Path file, String... options) {
        List<String> args = new ArrayList<>(List.of("import", "--data", dir.toString(), "--container", container,
                "--pk", partitionKey));
        args.addAll(List.of(options));
        args.add(file.toString());
        DocmirrorProcess.run(dir, args.toArray(String[]::new));
    }

    /** Twenty documents of 1,200 properties each: past the column limit of 1,000, into {@code _overflow}. */
    private static String wideDocuments() {
        StringBuilder lines = new StringBuilder();
        for (int document = 0; document < 20; document++) {
            int number = document;
            lines.append("{\"id\":\"w").append(document).append('"')
                    .append(IntStream.range(0, 1200).mapToObj(property -> ",\"p" + property + "\":"
                            + (number * property)).collect(Collectors.joining())).append("}\n");
        }
        return lines.toString();
    }

    /** The values of the first row that differs, in the two engines' spellings. */
    private static String firstDifference(List<String> sparkRows, List<String> sqlRows) {
        for (int index = 0; index < Math.min(sparkRows.size(), sqlRows.size()); index++) {
            if (sparkRows.get(index).equals(sqlRows.get(index))) {
                continue;
            }
            try {
                JsonNode spark = JSON.readTree(sparkRows.get(index));
                JsonNode sql = JSON.readTree(sqlRows.get(index));
                List<String> differences = new ArrayList<>();
                spark.fieldNames().forEachRemaining(name -> {
                    if (!spark.get(name).equals(sql.get(name))) {
                        differences.add(name + ": Spark " + spark.get(name) + ", SQL " + sql.get(name));
                    }
                });
                return "row " + index + " of id " + spark.path("id").asText(spark.path("_id").asText()) + " differs in "
                        + differences;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return "no row differs";
    }

    /** One spelling of a row's JSON, whichever writer wrote it (escapes, exponents). */
    private static String canonical(String jsonLine) {
        try {
            return JSON.writeValueAsString(JSON.readTree(jsonLine));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> names(String jsonLine) {
        try {
            List<String> names = new ArrayList<>();
            JSON.readTree(jsonLine).fieldNames().forEachRemaining(names::add);
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A row as {@code docmirror sql --format jsonl} writes one: decimals exactly, lists as arrays. */
    private static String json(List<String> columns, Row row) {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(text)) {
            json.writeStartObject();
            for (int index = 0; index < columns.size(); index++) {
                json.writeFieldName(columns.get(index));
                write(json, row.get(index));
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static void write(JsonGenerator json, Object value) throws IOException {
        if (value == null) {
            json.writeNull();
        } else if (value instanceof Boolean bool) {
            json.writeBoolean(bool);
        } else if (value instanceof BigDecimal decimal) {
            json.writeNumber(decimal.toPlainString());
        } else if (value instanceof Long number) {
            json.writeNumber(number);
        } else if (value instanceof Double number) {
            json.writeNumber(number);
        } else if (value instanceof scala.collection.Iterable<?> list) {
            json.writeStartArray();
            for (Iterator<?> elements = scala.jdk.javaapi.CollectionConverters.asJava(list.iterator());
                    elements.hasNext(); ) {
                write(json, elements.next());
            }
            json.writeEndArray();
        } else if (value instanceof String string) {
            json.writeString(string);
        } else {
            // Times: java.time's text, as the endpoint writes its LocalDateTime.
            json.writeString(value.toString());
        }
    }
}
