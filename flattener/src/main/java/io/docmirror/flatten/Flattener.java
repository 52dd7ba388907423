package io.docmirror.flatten;

import com.fasterxml.jackson.databind.JsonNode;

import static java.util.Objects.requireNonNull;

/**
 * Turns documents into rows of a root table and its child tables, inferring and evolving the container's schema as
 * it goes. Pure and deterministic: the same documents in the same order, from the same (or a reloaded) schema, give
 * the same rows and the same schema. Not thread-safe: one flattener per container, used by one thread.
 *
 * <pre>{@code
 * Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
 * FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"customer-7\"", 42, body));
 * }</pre>
 */
public final class Flattener {
    private final ContainerSchema schema;

    public Flattener(ContainerSchema schema) {
        this.schema = requireNonNull(schema, "schema is null");
    }

    public static Flattener create(FlattenerConfig config) {
        return new Flattener(ContainerSchema.create(config));
    }

    public ContainerSchema schema() {
        return schema;
    }

    /**
     * Flattens one document version. A document that cannot be mirrored at all (no string id, or system properties
     * that contradict the change event) comes back as a dead letter and changes nothing.
     *
     * @throws FlattenException if flattening fails part way; its message names the document and the JSON path
     */
    public FlattenResult flatten(SourceDocument document) {
        requireNonNull(document, "document is null");
        JsonNode idNode = document.body().get("id");
        String id = idNode != null && idNode.isTextual() ? idNode.textValue() : null;
        String problem = id == null ? "the document has no string id" : systemPropertyProblem(document);
        if (problem != null) {
            return FlattenResult.deadLetter(new DeadLetter(document.container(), id, document.lsn(), problem,
                    JsonText.write(document.body())));
        }
        try {
            return new DocumentWalker(schema, document, id).walk();
        } catch (RuntimeException e) {
            throw FlattenException.forDocument(e, document.container(), id);
        }
    }

    private static String systemPropertyProblem(SourceDocument document) {
        JsonNode ts = document.body().get("_ts");
        if (ts != null && !(ts.isIntegralNumber() && ts.canConvertToLong())) {
            return "system property _ts must be an integer (seconds since the epoch), not " + ts;
        }
        for (String textual : new String[] {"_etag", "_rid"}) {
            JsonNode value = document.body().get(textual);
            if (value != null && !value.isTextual()) {
                return "system property " + textual + " must be a string, not " + value;
            }
        }
        JsonNode lsn = document.body().get("_lsn");
        if (lsn != null && !(lsn.isIntegralNumber() && lsn.canConvertToLong() && lsn.longValue() == document.lsn())) {
            return "system property _lsn is " + lsn + " but the change event's LSN is " + document.lsn();
        }
        return null;
    }
}
