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

/**
 * One version of a document (a create or an update), flattened: its rows, or the dead letter it becomes, and the
 * {@code _ts} its history entry carries. A batch ({@link BatchWriter}) and a part of a backfill ({@link PartWriter})
 * make the same of it.
 *
 * @param result the rows and schema changes; null when flattening failed
 * @param deadLetter why the version cannot be mirrored; null when it is
 * @param documentTs the document's {@code _ts} in seconds (the change's when the document has none)
 */
record FlattenedVersion(FlattenResult result, DeadLetter deadLetter, long documentTs) {
    private static final Logger log = LoggerFactory.getLogger(FlattenedVersion.class);

    static FlattenedVersion of(Flattener flattener, String container, ChangeEvent event, String partitionKey,
            byte[] json) {
        FlattenResult result;
        try {
            result = flattener.flatten(new SourceDocument(container, partitionKey, event.lsn(), json));
        } catch (FlattenException e) {
            log.warn("Document {} of {} at LSN {} cannot be mirrored; it goes to the dead letters: {}",
                    event.id(), container, event.lsn(), e.getMessage(), e);
            return new FlattenedVersion(null, new DeadLetter(container, event.id(), event.lsn(), e.getMessage(),
                    new String(json, StandardCharsets.UTF_8)), event.ts() / 1000);
        }
        Object ts = result.rows().isEmpty() ? null : result.rows().get(0).value(SystemColumn.TS.columnName());
        return new FlattenedVersion(result, result.deadLetter().orElse(null),
                ts instanceof Long seconds ? seconds : event.ts() / 1000);
    }
}
