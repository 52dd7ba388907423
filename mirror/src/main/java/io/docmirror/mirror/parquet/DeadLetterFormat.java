package io.docmirror.mirror.parquet;

import io.docmirror.flatten.DeadLetter;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import java.util.List;

/**
 * Documents that could not be mirrored, kept whole with the reason: {@code container, id, _lsn, reason,
 * raw_document} (the SQL catalog's {@code docmirror_dead_letters}).
 */
public final class DeadLetterFormat {
    public static final Schema SCHEMA = Schema.createRecord("dead_letter", null, "io.docmirror", false, List.of(
            new Schema.Field("container", Schema.create(Schema.Type.STRING)),
            new Schema.Field("id", TableFormat.nullable(Schema.create(Schema.Type.STRING)), null,
                    Schema.Field.NULL_DEFAULT_VALUE),
            new Schema.Field("_lsn", Schema.create(Schema.Type.LONG)),
            new Schema.Field("reason", Schema.create(Schema.Type.STRING)),
            new Schema.Field("raw_document", Schema.create(Schema.Type.STRING))));
    public static final int LSN_FIELD = 2;

    private DeadLetterFormat() {
    }

    public static GenericRecord record(DeadLetter deadLetter) {
        GenericData.Record record = new GenericData.Record(SCHEMA);
        record.put(0, deadLetter.container());
        record.put(1, deadLetter.id());
        record.put(2, deadLetter.lsn());
        record.put(3, deadLetter.reason());
        record.put(4, deadLetter.rawDocument());
        return record;
    }
}
