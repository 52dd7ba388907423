package io.docmirror.flatten;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same documents in the same order make the same schema and rows: in a second run, after the schema was saved
 * and loaded again part way through (a restart or a replay), and whether they come as JSON bytes or as trees.
 */
class DeterminismTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.docmirror.flatten.TestDatasets#everyDatasetWithEveryPolicy")
    void aReloadedSchemaMakesTheSameDecisions(String fileName, TypePolicy policy) {
        Path file = TestDatasets.file(fileName);
        String table = TestDatasets.tableName(file);
        FlattenerConfig config = FlattenerConfig.defaults(table).withTypePolicy(policy);
        List<SourceDocument> documents = new ArrayList<>();
        List<ObjectNode> stored = TestingDocuments.readStored(file, table);
        for (int line = 0; line < stored.size(); line++) {
            documents.add(TestingDocuments.source(table, stored.get(line), line + 1));
        }

        Flattener uninterrupted = Flattener.create(config);
        List<String> uninterruptedRows = flattenAll(uninterrupted, documents);

        Flattener again = Flattener.create(config);
        assertThat(flattenAll(again, documents)).isEqualTo(uninterruptedRows);
        assertThat(SchemaCodec.toJson(again.schema())).isEqualTo(SchemaCodec.toJson(uninterrupted.schema()));

        int half = documents.size() / 2;
        Flattener first = Flattener.create(config);
        List<String> rows = new ArrayList<>(flattenAll(first, documents.subList(0, half)));
        String saved = SchemaCodec.toJson(first.schema());
        Flattener resumed = new Flattener(SchemaCodec.fromJson(saved, config));
        assertThat(SchemaCodec.toJson(resumed.schema())).as("schema after a save and load").isEqualTo(saved);
        rows.addAll(flattenAll(resumed, documents.subList(half, documents.size())));

        assertThat(rows).isEqualTo(uninterruptedRows);
        assertThat(SchemaCodec.toJson(resumed.schema())).isEqualTo(SchemaCodec.toJson(uninterrupted.schema()));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.docmirror.flatten.TestDatasets#everyDatasetWithEveryPolicy")
    void bytesAndTreesMakeTheSameRowsAndSchema(String fileName, TypePolicy policy) {
        Path file = TestDatasets.file(fileName);
        String table = TestDatasets.tableName(file);
        FlattenerConfig config = FlattenerConfig.defaults(table).withTypePolicy(policy);
        Flattener fromTrees = Flattener.create(config);
        Flattener fromBytes = Flattener.create(config);
        List<ObjectNode> stored = TestingDocuments.readStored(file, table);
        for (int line = 0; line < stored.size(); line++) {
            FlattenResult fromTree = fromTrees.flatten(TestingDocuments.source(table, stored.get(line), line + 1));
            FlattenResult fromJson = fromBytes.flatten(TestingDocuments.sourceJson(table, stored.get(line), line + 1));
            assertThat(fromJson.rows()).as("line %d", line + 1).hasToString(fromTree.rows().toString());
            assertThat(fromJson.schemaChanges()).as("line %d", line + 1).isEqualTo(fromTree.schemaChanges());
            assertThat(fromJson.losses()).as("line %d", line + 1).isEqualTo(fromTree.losses());
        }
        assertThat(SchemaCodec.toJson(fromBytes.schema())).isEqualTo(SchemaCodec.toJson(fromTrees.schema()));
    }

    private static List<String> flattenAll(Flattener flattener, List<SourceDocument> documents) {
        List<String> rows = new ArrayList<>();
        for (SourceDocument document : documents) {
            for (Row row : flattener.flatten(document).rows()) {
                rows.add(row.toString());
            }
        }
        return rows;
    }
}
