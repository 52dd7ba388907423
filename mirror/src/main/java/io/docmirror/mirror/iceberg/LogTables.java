package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.DeadLetter;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import static io.docmirror.flatten.SystemColumn.ID;
import static io.docmirror.flatten.SystemColumn.LSN;
import static io.docmirror.flatten.SystemColumn.PARTITION_KEY;
import static io.docmirror.flatten.SystemColumn.TS;

/**
 * The two tables that log what came rather than flatten it: the change history (one row per change, with the raw
 * document, which backs {@code <table>_history} and lets a table be rebuilt without the store) and the dead letters
 * (documents that could not be mirrored, whole, with the reason).
 */
final class LogTables {
    /**
     * {@code id, _pk, _lsn, _ts} (the document's {@code _ts}, seconds; for a delete, its commit second),
     * {@code _commit_time} (the change's commit time, UTC), {@code operation} ({@code CREATE}, {@code REPLACE},
     * {@code DELETE}), {@code ttl_expired}, {@code document} (the JSON text after the change; null for a delete).
     */
    static final Schema HISTORY = new Schema(
            Types.NestedField.optional(1, ID.columnName(), Types.StringType.get()),
            Types.NestedField.optional(2, PARTITION_KEY.columnName(), Types.StringType.get()),
            Types.NestedField.optional(3, LSN.columnName(), Types.LongType.get()),
            Types.NestedField.optional(4, TS.columnName(), Types.LongType.get()),
            Types.NestedField.optional(5, "_commit_time", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(6, "operation", Types.StringType.get()),
            Types.NestedField.optional(7, "ttl_expired", Types.BooleanType.get()),
            Types.NestedField.optional(8, "document", Types.StringType.get()));

    /** {@code container, id, _lsn, reason, raw_document} (the SQL catalog's {@code docmirror_dead_letters}). */
    static final Schema DEAD_LETTERS = new Schema(
            Types.NestedField.optional(1, "container", Types.StringType.get()),
            Types.NestedField.optional(2, ID.columnName(), Types.StringType.get()),
            Types.NestedField.optional(3, LSN.columnName(), Types.LongType.get()),
            Types.NestedField.optional(4, "reason", Types.StringType.get()),
            Types.NestedField.optional(5, "raw_document", Types.StringType.get()));

    private LogTables() {
    }

    /**
     * Fills {@code record}, an empty record of the history's schema, with a change.
     *
     * @param partitionKey the partition key as JSON text, spelled as in the tables' {@code _pk}
     * @param documentJson the document after the change as JSON (UTF-8), {@code null} for a delete
     */
    static Record history(Record record, ChangeEvent event, String partitionKey, long documentTs,
            byte[] documentJson) {
        record.setField(ID.columnName(), event.id());
        record.setField(PARTITION_KEY.columnName(), partitionKey);
        record.setField(LSN.columnName(), event.lsn());
        record.setField(TS.columnName(), documentTs);
        record.setField("_commit_time", LocalDateTime.ofInstant(Instant.ofEpochMilli(event.ts()), ZoneOffset.UTC));
        record.setField("operation", event.operation().name());
        record.setField("ttl_expired", event.ttlExpired());
        // As its UTF-8 bytes, which Iceberg's Parquet writer takes as they are: a String would be decoded here and
        // encoded again there, for what is most of a history's bytes.
        record.setField("document", documentJson == null ? null : new Utf8(documentJson));
        return record;
    }

    /** Fills {@code record}, an empty record of the dead letters' schema, with a dead letter. */
    static Record deadLetter(Record record, DeadLetter deadLetter) {
        record.setField("container", deadLetter.container());
        record.setField(ID.columnName(), deadLetter.id());
        record.setField(LSN.columnName(), deadLetter.lsn());
        record.setField("reason", deadLetter.reason());
        record.setField("raw_document", deadLetter.rawDocument());
        return record;
    }
}
