package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonPointer;

import static java.util.Objects.requireNonNull;

/**
 * A value the well-defined policy could not represent and so left NULL, as Cosmos DB's analytical store does. The
 * other policies never lose a value.
 *
 * @param location where the value was in the document ({@code /items/3/price})
 */
public record ValueLoss(JsonPointer location, String keptType, String seenType) {
    public ValueLoss {
        requireNonNull(location, "location is null");
        requireNonNull(keptType, "keptType is null");
        requireNonNull(seenType, "seenType is null");
    }
}
