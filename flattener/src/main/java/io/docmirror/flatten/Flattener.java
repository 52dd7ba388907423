package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Turns documents into rows of a root table and its child tables, inferring and evolving the container's schema as
 * it goes. Pure and deterministic: the same documents in the same order, from the same (or a reloaded) schema, give
 * the same rows and the same schema. Not thread-safe: one flattener per container, used by one thread.
 *
 * <pre>{@code
 * Flattener flattener = Flattener.create(FlattenerConfig.defaults("orders"));
 * FlattenResult result = flattener.flatten(new SourceDocument("orders", "\"customer-7\"", 42, json));
 * }</pre>
 */
public final class Flattener {
    private final ContainerSchema schema;
    private long changingWalks;

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
     * How many documents so far were walked to change the schema: to add or widen a column, but also to learn of a
     * number a column's type must be able to hold or of the structure a path claims, which no version counts. Every
     * change to what the schema decides next is made by such a walk.
     */
    public long changingWalks() {
        return changingWalks;
    }

    /**
     * Flattens one document version. A document that cannot be mirrored at all (no string id, or system properties
     * that contradict the change event) comes back as a dead letter and changes nothing.
     *
     * <p>Most documents fit the schema as it is: they are walked once, read-only, straight from their bytes. A
     * document that changes the schema is walked a second time, from its tree, after its system properties have
     * been checked, so that a dead letter never changes the schema.
     *
     * @throws FlattenException if flattening fails part way; its message names the document and the JSON path
     */
    public FlattenResult flatten(SourceDocument document) {
        requireNonNull(document, "document is null");
        Optional<FlattenResult> withoutChanges = walk(document, true);
        return withoutChanges.isPresent() ? withoutChanges.get() : walkChangingSchema(document);
    }

    /**
     * Flattens one document version as the schema stands, changing nothing it decides: empty when the document needs
     * a walk that may change the schema (a column to add or widen, a number or structure to learn) or breaks a
     * system property rule, which {@link #flatten} then settles. A scaled-out mirror's writers flatten this way
     * against the schema one decider keeps, and hand it the documents that come back empty. Conflicts and overflows
     * of a document that fits are counted, as {@link #flatten} counts them.
     *
     * @throws FlattenException if flattening fails part way; its message names the document and the JSON path
     */
    public Optional<FlattenResult> flattenWithinSchema(SourceDocument document) {
        requireNonNull(document, "document is null");
        return walk(document, true);
    }

    private FlattenResult walkChangingSchema(SourceDocument document) {
        changingWalks++;
        ObjectNode body;
        String problem;
        try {
            body = document.body();
            problem = SystemPropertyRules.problem(body, document.lsn());
        } catch (IOException e) {
            throw FlattenException.forDocument(e, document.container(), null);
        }
        if (problem != null) {
            String id = body.path("id").isTextual() ? body.get("id").textValue() : null;
            return FlattenResult.deadLetter(new DeadLetter(document.container(), id, document.lsn(), problem,
                    JsonText.write(body)));
        }
        return walk(document, false).orElseThrow();
    }

    private Optional<FlattenResult> walk(SourceDocument document, boolean readOnly) {
        DocumentWalker walker = new DocumentWalker(schema, document, readOnly);
        try (JsonParser parser = document.parser()) {
            return walker.walk(parser);
        } catch (IOException | RuntimeException e) {
            throw FlattenException.forDocument(e, document.container(), walker.id());
        }
    }
}
