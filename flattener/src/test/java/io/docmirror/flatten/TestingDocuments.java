package io.docmirror.flatten;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Documents for tests: read exactly as the store reads them, stored as the store stores them, compared as JSON. */
public final class TestingDocuments {
    public static final ObjectMapper EXACT = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    /** Numbers equal by value (1.50 = 1.5 = 1.5E0), everything else by Jackson's equality. */
    public static final Comparator<JsonNode> SAME_VALUE = (left, right) -> {
        if (left.isNumber() && right.isNumber()) {
            return left.decimalValue().compareTo(right.decimalValue());
        }
        return left.equals(right) ? 0 : 1;
    };

    private TestingDocuments() {
    }

    public static ObjectNode parse(String json) {
        try {
            return (ObjectNode) EXACT.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<ObjectNode> readLines(Path file) {
        try {
            List<ObjectNode> documents = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    documents.add(parse(line));
                }
            }
            return documents;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The document as the store keeps it: a string id (made up when it has none) and the system properties. */
    public static ObjectNode asStored(ObjectNode document, String fallbackId, long lsn) {
        ObjectNode stored = document.deepCopy();
        if (!stored.path("id").isTextual()) {
            stored.put("id", fallbackId);
        }
        stored.put("_rid", "rid-" + lsn);
        stored.put("_etag", "\"etag-" + lsn + "\"");
        stored.put("_ts", 1_700_000_000L + lsn);
        stored.put("_lsn", lsn);
        return stored;
    }

    /** A dataset's documents as the store keeps them, the document of line n with LSN n. */
    public static List<ObjectNode> readStored(Path file, String container) {
        List<ObjectNode> lines = readLines(file);
        List<ObjectNode> stored = new ArrayList<>(lines.size());
        for (int line = 0; line < lines.size(); line++) {
            stored.add(asStored(lines.get(line), container + "-" + (line + 1), line + 1));
        }
        return stored;
    }

    public static SourceDocument source(String container, ObjectNode body, long lsn) {
        return new SourceDocument(container, body.get("id").toString(), lsn, body);
    }

    /** The document as the change feed hands it to the mirror: the JSON bytes the store wrote. */
    public static SourceDocument sourceJson(String container, ObjectNode body, long lsn) {
        try {
            return new SourceDocument(container, body.get("id").toString(), lsn, EXACT.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean sameDocument(JsonNode expected, JsonNode actual) {
        return expected.equals(SAME_VALUE, actual);
    }
}
