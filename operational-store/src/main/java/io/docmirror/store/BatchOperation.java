package io.docmirror.store;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * One operation of a transactional batch. All operations of a batch share one partition key value.
 *
 * @param id the item id, for read, replace, patch and delete (create and upsert take it from the document)
 * @param document the item JSON, for create, upsert and replace
 * @param patch the patch operations, for patch
 * @param ifMatch an optional {@code _etag} the item must have
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BatchOperation(Type type, String id, String document, List<PatchOperation> patch, String ifMatch) {
    public enum Type {
        CREATE, UPSERT, REPLACE, READ, DELETE, PATCH;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static Type fromWireName(String name) {
            for (Type type : values()) {
                if (type.wireName().equals(name)) {
                    return type;
                }
            }
            throw new IllegalArgumentException("unknown batch operation '" + name
                    + "', expected one of create, upsert, replace, read, delete, patch");
        }
    }

    public BatchOperation {
        requireNonNull(type, "type is null");
        patch = patch == null ? null : List.copyOf(patch);
    }

    public static BatchOperation create(String document) {
        return new BatchOperation(Type.CREATE, null, document, null, null);
    }

    public static BatchOperation upsert(String document) {
        return new BatchOperation(Type.UPSERT, null, document, null, null);
    }

    public static BatchOperation replace(String id, String document) {
        return new BatchOperation(Type.REPLACE, id, document, null, null);
    }

    public static BatchOperation read(String id) {
        return new BatchOperation(Type.READ, id, null, null, null);
    }

    public static BatchOperation delete(String id) {
        return new BatchOperation(Type.DELETE, id, null, null, null);
    }

    public static BatchOperation patch(String id, List<PatchOperation> operations) {
        return new BatchOperation(Type.PATCH, id, null, operations, null);
    }

    public BatchOperation withIfMatch(String etag) {
        return new BatchOperation(type, id, document, patch, etag);
    }

    Precondition precondition() {
        return Precondition.ofNullable(ifMatch);
    }
}
