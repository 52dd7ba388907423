package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * One version of one document, as the change feed delivers it: as the JSON bytes the store wrote, or as a tree.
 * The flattener reads bytes as a token stream and builds a tree only for a document that changes the schema.
 */
public final class SourceDocument {
    private final String container;
    private final String partitionKey;
    private final long lsn;
    private final byte[] json;
    private ObjectNode body;

    /**
     * @param container the container it lives in (for error messages and dead letters)
     * @param partitionKey the partition key value as JSON text ({@code "Chinese"}, {@code 42}, {@code {}} for none)
     * @param lsn the change's log sequence number
     * @param body the document as stored: its {@code id}, its properties, and the system properties {@code _rid},
     *     {@code _etag}, {@code _ts}, {@code _lsn}. Numbers should be read exactly (BigInteger, BigDecimal) or a
     *     double will have rounded them before the flattener sees them.
     */
    public SourceDocument(String container, String partitionKey, long lsn, ObjectNode body) {
        this(container, partitionKey, lsn, null, requireNonNull(body, "body is null"));
    }

    /**
     * @param json the document as the store wrote it: one UTF-8 JSON object, without duplicate property names (the
     *     store refuses them); the flattener keeps the array, so the caller must not change it afterwards
     */
    public SourceDocument(String container, String partitionKey, long lsn, byte[] json) {
        this(container, partitionKey, lsn, requireNonNull(json, "json is null"), null);
    }

    private SourceDocument(String container, String partitionKey, long lsn, byte[] json, ObjectNode body) {
        this.container = requireNonNull(container, "container is null");
        this.partitionKey = requireNonNull(partitionKey, "partitionKey is null");
        this.lsn = lsn;
        this.json = json;
        this.body = body;
    }

    public String container() {
        return container;
    }

    public String partitionKey() {
        return partitionKey;
    }

    public long lsn() {
        return lsn;
    }

    /** The document as a tree, read from its bytes on first use. */
    ObjectNode body() throws IOException {
        if (body == null) {
            JsonNode tree = JsonText.read(json);
            if (!(tree instanceof ObjectNode object)) {
                throw new IOException("A document must be a JSON object");
            }
            body = object;
        }
        return body;
    }

    /** Whether a string in the document might hold an unpaired surrogate: only bytes can show that none does. */
    boolean mayHoldSurrogates() {
        return json == null || JsonText.mayHoldSurrogates(json);
    }

    /** A parser over the document, before its first token: over its tree once there is one, else over its bytes. */
    JsonParser parser() throws IOException {
        return body != null ? body.traverse() : JsonText.parser(json);
    }
}
