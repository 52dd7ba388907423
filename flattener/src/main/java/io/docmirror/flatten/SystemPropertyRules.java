package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;

/**
 * What the store's system properties at a document's root must hold for the document to be mirrored: a string
 * {@code id}, {@code _etag} and {@code _rid}, an integer {@code _ts}, and in {@code _lsn} the change event's LSN.
 */
final class SystemPropertyRules {
    private static final String NO_STRING_ID = "the document has no string id";

    private SystemPropertyRules() {
    }

    /** Why the document breaks a system property rule, or {@code null} if it keeps them all. */
    static String problem(ObjectNode body, long lsn) throws IOException {
        if (body.get("id") == null) {
            return NO_STRING_ID;
        }
        for (String name : SystemColumns.DOCUMENT_PROPERTIES) {
            JsonNode value = body.get(name);
            if (value != null) {
                JsonParser parser = value.traverse();
                parser.nextToken();
                String problem = problem(name, parser, lsn);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    /**
     * Why the value the parser is on breaks the rule of system property {@code name}, or {@code null} if it keeps
     * it. A value that keeps its rule is left unread beyond its token; one that breaks it may be consumed.
     */
    static String problem(String name, JsonParser value, long lsn) throws IOException {
        JsonToken token = value.currentToken();
        return switch (name) {
            case "id" -> token == JsonToken.VALUE_STRING ? null : NO_STRING_ID;
            case "_etag", "_rid" -> token == JsonToken.VALUE_STRING ? null
                    : "system property " + name + " must be a string, not " + text(value);
            case "_ts" -> isLong(value) ? null
                    : "system property _ts must be an integer (seconds since the epoch), not " + text(value);
            case "_lsn" -> isLong(value) && value.getLongValue() == lsn ? null
                    : "system property _lsn is " + text(value) + " but the change event's LSN is " + lsn;
            default -> null;
        };
    }

    private static boolean isLong(JsonParser value) throws IOException {
        return value.currentToken() == JsonToken.VALUE_NUMBER_INT
                && (value.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                        || value.getBigIntegerValue().bitLength() < Long.SIZE);
    }

    private static String text(JsonParser value) throws IOException {
        return JsonText.read(value).toString();
    }
}
