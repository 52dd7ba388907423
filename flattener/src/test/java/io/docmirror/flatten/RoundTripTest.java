package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every document of every real dataset, flattened from its JSON bytes under each policy, is rebuilt from its rows alone
 * ({@link DocumentRebuilder}) and must equal the document as stored. The well-defined policy may lose values, but
 * only those it reported; the test takes exactly those out of the expected document.
 */
class RoundTripTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.docmirror.flatten.TestDatasets#everyDatasetWithEveryPolicy")
    void everyDocumentIsRebuiltFromItsRows(String fileName, TypePolicy policy) {
        Path file = TestDatasets.file(fileName);
        String table = TestDatasets.tableName(file);
        Flattener flattener = Flattener.create(FlattenerConfig.defaults(table).withTypePolicy(policy));
        List<ObjectNode> documents = TestingDocuments.readStored(file, table);
        int lossy = 0;
        for (int line = 0; line < documents.size(); line++) {
            long lsn = line + 1;
            ObjectNode stored = documents.get(line);
            FlattenResult result = flattener.flatten(TestingDocuments.sourceJson(table, stored, lsn));
            assertThat(result.deadLetter()).as("line %d of %s", lsn, fileName).isEmpty();
            if (policy != TypePolicy.WELL_DEFINED) {
                assertThat(result.losses()).as("line %d of %s", lsn, fileName).isEmpty();
            }
            ObjectNode expected = stored.deepCopy();
            for (ValueLoss loss : result.losses()) {
                remove(expected, loss.location());
            }
            lossy += result.losses().isEmpty() ? 0 : 1;
            ObjectNode rebuilt = DocumentRebuilder.rebuild(result.rows());
            assertThat(TestingDocuments.sameDocument(expected, rebuilt))
                    .as("line %d of %s under %s rebuilt:%n%s%nexpected:%n%s", lsn, fileName, policy, rebuilt, expected)
                    .isTrue();
        }
        if (policy == TypePolicy.WELL_DEFINED) {
            long reported = flattener.schema().conflicts().stream()
                    .filter(conflict -> conflict.resolution().equals("NULL"))
                    .mapToLong(Conflict::count)
                    .sum();
            assertThat(reported).as("losses counted in the catalog").isGreaterThanOrEqualTo(lossy);
        }
        assertThat(flattener.schema().tables()).allSatisfy(schemaTable ->
                assertThat(schemaTable.columns()).hasSizeLessThanOrEqualTo(FlattenerConfig.defaults(table).columnLimit()));
    }

    /**
     * Takes a lost value out of the expected document. An object that held nothing else goes with it: its row had
     * only that value, so nothing is left to say the object was there.
     */
    private static void remove(ObjectNode document, JsonPointer location) {
        JsonNode parent = document.at(location.head());
        String last = location.last().getMatchingProperty();
        if (parent instanceof ObjectNode object) {
            object.remove(last);
            if (object.isEmpty() && location.head().head() != null && document.at(location.head().head()).isObject()) {
                remove(document, location.head());
            }
        } else if (parent instanceof ArrayNode) {
            throw new AssertionError("A loss inside an array element value: " + location);
        }
    }
}
