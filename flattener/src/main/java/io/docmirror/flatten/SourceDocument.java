package io.docmirror.flatten;

import com.fasterxml.jackson.databind.node.ObjectNode;

import static java.util.Objects.requireNonNull;

/**
 * One version of one document, as the change feed delivers it.
 *
 * @param container the container it lives in (for error messages and dead letters)
 * @param partitionKey the partition key value as JSON text ({@code "Chinese"}, {@code 42}, {@code {}} for none)
 * @param lsn the change's log sequence number
 * @param body the document as stored: its {@code id}, its properties, and the system properties {@code _rid},
 *     {@code _etag}, {@code _ts}, {@code _lsn}. Numbers should be read exactly (BigInteger, BigDecimal) or a double
 *     will have rounded them before the flattener sees them.
 */
public record SourceDocument(String container, String partitionKey, long lsn, ObjectNode body) {
    public SourceDocument {
        requireNonNull(container, "container is null");
        requireNonNull(partitionKey, "partitionKey is null");
        requireNonNull(body, "body is null");
    }
}
