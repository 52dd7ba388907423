package io.docmirror.mirror.parquet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The change history of a container: one row per change, as it came, with the raw document. It backs the
 * {@code <table>_history} views and lets a table be rebuilt under a new mapping without reading the store.
 *
 * <p>Columns: {@code id, _pk, _lsn, _ts} (the document's {@code _ts}, seconds; for a delete, its commit second),
 * {@code _commit_time} (TIMESTAMP, the change's commit time), {@code operation} ({@code CREATE}, {@code REPLACE},
 * {@code DELETE}), {@code ttl_expired}, {@code document} (the JSON text after the change; NULL for a delete).
 */
public final class HistoryFormat {
    public static final Schema SCHEMA = Schema.createRecord("history", null, "io.docmirror", false, List.of(
            new Schema.Field("id", Schema.create(Schema.Type.STRING)),
            new Schema.Field("_pk", Schema.create(Schema.Type.STRING)),
            new Schema.Field("_lsn", Schema.create(Schema.Type.LONG)),
            new Schema.Field("_ts", Schema.create(Schema.Type.LONG)),
            new Schema.Field("_commit_time",
                    LogicalTypes.localTimestampMillis().addToSchema(Schema.create(Schema.Type.LONG))),
            new Schema.Field("operation", Schema.create(Schema.Type.STRING)),
            new Schema.Field("ttl_expired", Schema.create(Schema.Type.BOOLEAN)),
            new Schema.Field("document", TableFormat.nullable(Schema.create(Schema.Type.STRING)), null,
                    Schema.Field.NULL_DEFAULT_VALUE)));
    public static final int LSN_FIELD = 2;

    private HistoryFormat() {
    }

    /** The {@code _ts} a change's history row has: the document's own, or for a delete its commit second. */
    public static long documentTs(ChangeEvent event) {
        return event.documentJson().map(json -> documentTs(json, event.ts())).orElse(event.ts() / 1000);
    }

    /** A document's top-level integer {@code _ts}; the second of {@code commitMillis} when it has none. */
    public static long documentTs(byte[] documentJson, long commitMillis) {
        try (JsonParser parser = StoreJson.mapper().getFactory().createParser(documentJson)) {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("_ts") && value == JsonToken.VALUE_NUMBER_INT) {
                    return parser.getLongValue();
                }
                parser.skipChildren();
            }
            return commitMillis / 1000;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read a stored document: " + e.getMessage(), e);
        }
    }

    /**
     * @param partitionKey the partition key as JSON text, spelled as in the tables' {@code _pk}
     * @param documentJson the document after the change as JSON text, {@code null} for a delete
     */
    public static GenericRecord record(ChangeEvent event, String partitionKey, long documentTs,
            String documentJson) {
        GenericData.Record record = new GenericData.Record(SCHEMA);
        record.put(0, event.id());
        record.put(1, partitionKey);
        record.put(2, event.lsn());
        record.put(3, documentTs);
        record.put(4, event.ts());
        record.put(5, event.operation().name());
        record.put(6, event.ttlExpired());
        record.put(7, documentJson);
        return record;
    }
}
