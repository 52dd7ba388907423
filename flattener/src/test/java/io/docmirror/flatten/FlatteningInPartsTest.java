package io.docmirror.flatten;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Documents flattened in parts ({@link SchemaPlan} and its {@link SchemaScan}s, each part from its starting schema,
 * the tallies added in order) make exactly the rows and the schema (tallies included) that one flattener makes of the
 * same documents in the same order, however they are cut.
 */
class FlatteningInPartsTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.docmirror.flatten.TestDatasets#everyDatasetWithEveryPolicy")
    void everyDatasetCutInPartsMakesTheRowsAndSchemaOfOneFlattener(String fileName, TypePolicy policy) {
        Path file = TestDatasets.file(fileName);
        String table = TestDatasets.tableName(file);
        FlattenerConfig config = FlattenerConfig.defaults(table).withTypePolicy(policy);
        List<SourceDocument> documents = new ArrayList<>();
        List<ObjectNode> stored = TestingDocuments.readStored(file, table);
        for (int line = 0; line < stored.size(); line++) {
            documents.add(TestingDocuments.sourceJson(table, stored.get(line), line + 1));
        }
        for (int parts : new int[] {1, 2, 7, 40}) {
            assertSameAsOneFlattener(config, documents, parts);
        }
    }

    /**
     * A column that widens after a conflict was counted: the tally names the type the column had then. A part
     * flattened from the final schema would count it against the wider type; from its starting schema it does not.
     */
    @Test
    void aConflictCountedBeforeAWideningKeepsTheTypeOfItsTime() {
        FlattenerConfig config = FlattenerConfig.defaults("orders");
        List<SourceDocument> documents = List.of(
                document("orders", "{\"id\":\"a\",\"price\":1}", 1),
                document("orders", "{\"id\":\"b\",\"price\":\"one\"}", 2),
                document("orders", "{\"id\":\"c\",\"price\":1.5}", 3),
                document("orders", "{\"id\":\"d\",\"price\":\"two\"}", 4),
                document("orders", "{\"id\":\"e\",\"price\":2}", 5));
        // One document a part, and empty parts after them.
        ContainerSchema whole = assertSameAsOneFlattener(config, documents, documents.size() + 3);
        assertThat(whole.conflicts()).extracting(Conflict::keptType).containsExactly("BIGINT", "DOUBLE");
    }

    /** A table at its column limit: which paths got columns, and which went to {@code _overflow}, is the order's. */
    @Test
    void theColumnLimitFillsInTheOrderOfTheWholeSequence() {
        FlattenerConfig config = FlattenerConfig.defaults("wide").withColumnLimit(12);
        List<SourceDocument> documents = new ArrayList<>();
        for (int document = 0; document < 12; document++) {
            StringBuilder json = new StringBuilder("{\"id\":\"d" + document + "\"");
            for (int property = 0; property < 4; property++) {
                json.append(",\"p").append((document * 3 + property) % 17).append("\":").append(property);
            }
            documents.add(document("wide", json.append('}').toString(), document + 1));
        }
        ContainerSchema whole = assertSameAsOneFlattener(config, documents, 5);
        assertThat(whole.overflows()).isNotEmpty();
    }

    /** Flattens {@code documents} whole and in {@code parts} parts; asserts the two agree; returns the schema. */
    private static ContainerSchema assertSameAsOneFlattener(FlattenerConfig config, List<SourceDocument> documents,
            int parts) {
        Flattener one = Flattener.create(config);
        List<String> expectedRows = flatten(one, documents);

        List<List<SourceDocument>> cut = cut(documents, parts);
        SchemaPlan plan = new SchemaPlan(config, cut.size());
        while (!plan.settled()) {
            List<SchemaScan.Result> results = new ArrayList<>();
            for (int part : plan.partsToScan()) {
                SchemaScan scan = new SchemaScan(plan.startOf(part), config);
                cut.get(part).forEach(document -> scan.add(document.container(), document.partitionKey(),
                        document.lsn(), json(document)));
                SchemaScan.Result result = scan.result();
                assertThat(result.documents()).isEqualTo(cut.get(part).size());
                results.add(result);
            }
            plan.scanned(results);
            assertThat(plan.rounds()).as("rounds of %d parts", parts).isLessThanOrEqualTo(cut.size() + 1);
        }
        ContainerSchema end = plan.end();
        List<String> rows = new ArrayList<>();
        for (int index = 0; index < cut.size(); index++) {
            Flattener part = new Flattener(SchemaCodec.fromJson(plan.startOf(index), config));
            rows.addAll(flatten(part, cut.get(index)));
            String next = index + 1 < cut.size() ? plan.startOf(index + 1) : SchemaCodec.structureToJson(end);
            assertThat(SchemaCodec.structureToJson(part.schema())).as("part %d of %d ends where the next starts",
                    index, parts).isEqualTo(next);
            end.addTallies(part.schema());
        }
        assertThat(rows).as("rows in %d parts", parts).isEqualTo(expectedRows);
        assertThat(SchemaCodec.toJson(end)).as("schema in %d parts", parts)
                .isEqualTo(SchemaCodec.toJson(one.schema()));
        return end;
    }

    private static List<List<SourceDocument>> cut(List<SourceDocument> documents, int parts) {
        List<List<SourceDocument>> cut = new ArrayList<>();
        for (int part = 0; part < parts; part++) {
            cut.add(documents.subList(documents.size() * part / parts, documents.size() * (part + 1) / parts));
        }
        return cut;
    }

    private static List<String> flatten(Flattener flattener, List<SourceDocument> documents) {
        List<String> rows = new ArrayList<>();
        for (SourceDocument document : documents) {
            try {
                FlattenResult result = flattener.flatten(document);
                result.rows().forEach(row -> rows.add(row.toString()));
                result.deadLetter().ifPresent(dead -> rows.add("dead letter " + dead));
            } catch (FlattenException e) {
                rows.add("failed " + e.getMessage());
            }
        }
        return rows;
    }

    private static SourceDocument document(String container, String json, long lsn) {
        ObjectNode body = TestingDocuments.asStored(TestingDocuments.parse(json), "x", lsn);
        return TestingDocuments.sourceJson(container, body, lsn);
    }

    private static byte[] json(SourceDocument document) {
        try {
            return TestingDocuments.EXACT.writeValueAsBytes(document.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
