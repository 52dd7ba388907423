package io.docmirror.mirror;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The {@code _ts} a change has in the mirror's tables and history (seconds): the document's own top-level integer
 * {@code _ts}, or, for a delete or a document without one, the second of the change's commit.
 */
public final class DocumentTimestamp {
    private DocumentTimestamp() {
    }

    public static long of(ChangeEvent event) {
        return event.documentJson().map(json -> of(json, event.ts())).orElse(event.ts() / 1000);
    }

    /** A document's top-level integer {@code _ts}; the second of {@code commitMillis} when it has none. */
    public static long of(byte[] documentJson, long commitMillis) {
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
}
