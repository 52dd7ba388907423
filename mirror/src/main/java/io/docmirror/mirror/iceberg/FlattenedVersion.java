package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.DeadLetter;
import io.docmirror.flatten.FlattenException;
import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.flatten.SystemColumn;
import io.docmirror.store.changelog.ChangeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Function;

/**
 * One version of a document (a create or an update), flattened: its rows, or the dead letter it becomes, and the
 * {@code _ts} its history entry carries. A batch ({@link BatchWriter}), a part of a backfill ({@link PartWriter})
 * and a shard of a stream ({@link ShardWriter}) make the same of it.
 *
 * @param result the rows and schema changes; null when flattening failed
 * @param deadLetter why the version cannot be mirrored; null when it is
 * @param documentTs the document's {@code _ts} in seconds (the change's when the document has none)
 */
record FlattenedVersion(FlattenResult result, DeadLetter deadLetter, long documentTs) {
    private static final Logger log = LoggerFactory.getLogger(FlattenedVersion.class);

    static FlattenedVersion of(Flattener flattener, String container, ChangeEvent event, String partitionKey,
            byte[] json) {
        return flatten(document -> Optional.of(flattener.flatten(document)), container, event, partitionKey, json)
                .orElseThrow();
    }

    /**
     * The version flattened as the flattener's schema stands ({@link Flattener#flattenWithinSchema}); empty when it
     * needs the schema to change, which a scaled-out mirror's writer leaves to the one that decides the schema.
     */
    static Optional<FlattenedVersion> withinSchema(Flattener flattener, String container, ChangeEvent event,
            String partitionKey, byte[] json) {
        return flatten(flattener::flattenWithinSchema, container, event, partitionKey, json);
    }

    private static Optional<FlattenedVersion> flatten(Function<SourceDocument, Optional<FlattenResult>> walk,
            String container, ChangeEvent event, String partitionKey, byte[] json) {
        Optional<FlattenResult> walked;
        try {
            walked = walk.apply(new SourceDocument(container, partitionKey, event.lsn(), json));
        } catch (FlattenException e) {
            log.warn("Document {} of {} at LSN {} cannot be mirrored; it goes to the dead letters: {}",
                    event.id(), container, event.lsn(), e.getMessage(), e);
            return Optional.of(new FlattenedVersion(null, new DeadLetter(container, event.id(), event.lsn(),
                    e.getMessage(), new String(json, StandardCharsets.UTF_8)), event.ts() / 1000));
        }
        return walked.map(result -> {
            Object ts = result.rows().isEmpty() ? null : result.rows().get(0).value(SystemColumn.TS.columnName());
            return new FlattenedVersion(result, result.deadLetter().orElse(null),
                    ts instanceof Long seconds ? seconds : event.ts() / 1000);
        });
    }
}
