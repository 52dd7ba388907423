package io.docmirror.mirror;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.StoreClient;
import io.docmirror.store.TestData;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

/**
 * A container's worth of documents that exercise every decision of the flattener: real datasets (conflicting types in
 * {@code json_schema_test_suite}, nested arrays, numbers), one path whose type changes document by document (a column
 * that widens, variants), and a document wider than the column limit. Partition key path {@code /pk}.
 */
public final class MixedDocuments {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> DATASETS = List.of("json_schema_test_suite", "osv_vulns", "usgs_earthquakes",
            "mongo_books");

    private MixedDocuments() {
    }

    /** Writes the documents into {@code container}; returns how many. */
    public static long write(StoreClient store, String container) throws IOException {
        int count = 0;
        for (String dataset : DATASETS) {
            List<String> lines = Files.readAllLines(TestData.file(dataset + ".jsonl"), StandardCharsets.UTF_8);
            for (String line : lines.subList(0, Math.min(lines.size(), 150))) {
                ObjectNode document = (ObjectNode) JSON.readTree(line);
                document.put("id", dataset + "-" + count);
                document.put("pk", "p" + count % 11);
                store.upsertItem(container, document.toString());
                count++;
            }
        }
        for (String price : List.of("1", "\"one\"", "1.5", "\"two\"", "12345678901234567890123", "true", "2")) {
            store.upsertItem(container, "{\"id\":\"price-" + count + "\",\"pk\":\"p" + count % 11 + "\",\"price\":"
                    + price + "}");
            count++;
        }
        ObjectNode wide = JSON.createObjectNode().put("id", "wide").put("pk", "p1");
        for (int property = 0; property < 1100; property++) {
            wide.put("property" + property, property);
        }
        store.upsertItem(container, wide.toString());
        return count + 1;
    }
}
