package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonProcessingException;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A document could not be flattened. The message names the document and the JSON path of the value, built as the
 * recursion unwinds (each level adds its property name or array index, like Jackson's {@code wrapWithPath}):
 * {@code Cannot flatten document orders/42 at /items/3/price: <reason>}.
 */
public final class FlattenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String reason;
    private final Deque<String> path = new ArrayDeque<>();
    private String document = "";

    FlattenException(String reason, Throwable cause) {
        super(reason, cause);
        this.reason = reason;
    }

    /** Adds a property name or an array index in front of the path, as the exception travels up the recursion. */
    static FlattenException wrapWithPath(Exception failure, String step) {
        FlattenException wrapped = failure instanceof FlattenException flattenException
                ? flattenException
                : new FlattenException(reasonOf(failure), failure);
        wrapped.path.addFirst(step.replace("~", "~0").replace("/", "~1"));
        return wrapped;
    }

    /** @param id the document's id, {@code null} if the failure came before it was read */
    static FlattenException forDocument(Exception failure, String container, String id) {
        FlattenException wrapped = failure instanceof FlattenException flattenException
                ? flattenException
                : new FlattenException(reasonOf(failure), failure);
        wrapped.document = container + "/" + (id != null ? id : "(id not read)");
        return wrapped;
    }

    private static String reasonOf(Exception failure) {
        if (failure instanceof JsonProcessingException notJson) {
            return "not valid JSON: " + notJson.getOriginalMessage();
        }
        return failure.getMessage() != null ? failure.getMessage() : failure.toString();
    }

    /** The JSON pointer of the value that failed ({@code /items/3/price}; empty for the document itself). */
    public String path() {
        return path.isEmpty() ? "" : "/" + String.join("/", path);
    }

    public String reason() {
        return reason;
    }

    @Override
    public String getMessage() {
        return "Cannot flatten document " + document + " at " + (path.isEmpty() ? "/" : path()) + ": " + reason;
    }
}
