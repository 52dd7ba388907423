package io.docmirror.feed.derive;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * How one target container's documents are produced from a source document. The steps, in order:
 * <ol>
 *   <li><b>split</b> (optional): one target document per element of the array at {@code split}; without it, one per
 *   source document. The element (or the whole source document) is the <em>unit</em>. An element that is not an
 *   object becomes {@code {"value": element}}. A missing or null array gives no documents.</li>
 *   <li><b>fields</b> (optional): the target's fields, each taken from a JSON pointer into the unit (projection and
 *   renaming); without it, every field of the unit but the store's system properties and {@code ttl}.</li>
 *   <li><b>parent-fields</b> (split only): fields taken from the whole source document, such as the reference to
 *   the parent; <b>index-field</b> (split only): a field that receives the element's position.</li>
 *   <li><b>drop</b>: JSON pointers removed from the result.</li>
 *   <li><b>flatten</b>: nested objects become top-level fields named by their path ({@code shipping_address_city}).</li>
 *   <li><b>id</b>: the deterministic id, a template over the result's fields ({@code "{orderId}:{line}"}).</li>
 * </ol>
 *
 * @param container the target container
 * @param partitionKey the target's partition key path, a pointer into the produced document
 * @param id the target id template
 * @param fields target field name to pointer into the unit, in order; empty to keep the whole unit
 * @param drop pointers removed from the produced document
 * @param flatten whether nested objects become top-level fields
 * @param split the array whose elements become target documents; empty for one target document per source
 * @param parentFields target field name to pointer into the source document (split only)
 * @param indexField the field that receives an element's position (split only)
 * @param deleteWithSource whether a user's delete of the source document, or an update after which the source no
 *     longer produces a target document, deletes that target document (off for targets that outlive one source
 *     document, such as a customer written by each of their orders)
 * @param defaultTtl the target container's TTL (absent, -1 or seconds)
 * @param analyticalTtl the target container's analytical TTL (-1 mirrors it and keeps every version)
 */
public record TargetMapping(String container, JsonPointer partitionKey, IdTemplate id, Map<String, JsonPointer> fields,
        List<JsonPointer> drop, boolean flatten, Optional<JsonPointer> split, Map<String, JsonPointer> parentFields,
        Optional<String> indexField, boolean deleteWithSource, Integer defaultTtl, Integer analyticalTtl) {
    /** The field each derived document carries with its lineage; the LSN guard reads it back. */
    public static final String LINEAGE_FIELD = "_derivedFrom";
    private static final String FLATTEN_SEPARATOR = "_";

    /** Fields of a source document that a target never copies: the store sets its own, and the target has its TTL. */
    private static final Set<String> NOT_COPIED = Set.of("_rid", "_etag", "_ts", "_lsn", "_self", "_attachments",
            "ttl", LINEAGE_FIELD);

    public TargetMapping {
        requireNonNull(container, "container is null");
        requireNonNull(partitionKey, "partitionKey is null");
        requireNonNull(id, "id is null");
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(fields, "fields is null")));
        drop = List.copyOf(drop);
        requireNonNull(split, "split is null");
        parentFields = Collections.unmodifiableMap(new LinkedHashMap<>(parentFields));
        requireNonNull(indexField, "indexField is null");
    }

    /** The target container as the runner creates it when missing. */
    public ContainerProperties containerProperties() {
        return ContainerProperties.of(container, partitionKey.toString()).withDefaultTtl(defaultTtl)
                .withAnalyticalTtl(analyticalTtl);
    }

    /**
     * The target documents {@code source} produces, without lineage.
     *
     * @throws DerivationException when the source document does not fit the mapping (the split path holds something
     *     other than an array, a flattened name collides, the id cannot be formed)
     */
    public List<TargetDocument> derive(ObjectNode source) {
        List<ObjectNode> units = new ArrayList<>();
        if (split.isEmpty()) {
            units.add(source);
        } else {
            JsonNode array = source.at(split.get());
            if (!array.isMissingNode() && !array.isNull() && !array.isArray()) {
                throw new DerivationException(container, split.get().toString(),
                        "split needs an array, found " + array.getNodeType().name().toLowerCase());
            }
            for (JsonNode element : array) {
                units.add(element.isObject() ? (ObjectNode) element : source.objectNode().set("value", element));
            }
        }
        List<TargetDocument> documents = new ArrayList<>(units.size());
        for (int index = 0; index < units.size(); index++) {
            ObjectNode document = project(units.get(index));
            parentFields.forEach((name, pointer) -> copy(source, pointer, document, name));
            int position = index;
            indexField.ifPresent(name -> document.put(name, position));
            for (JsonPointer pointer : drop) {
                remove(document, pointer);
            }
            ObjectNode shaped = flatten ? flattened(document) : document;
            shaped.put("id", id.render(shaped, container));
            documents.add(new TargetDocument(container, partitionKeyOf(shaped), shaped));
        }
        return documents;
    }

    private ObjectNode project(ObjectNode unit) {
        ObjectNode document = unit.objectNode();
        if (fields.isEmpty()) {
            unit.fields().forEachRemaining(field -> {
                if (!NOT_COPIED.contains(field.getKey())) {
                    document.set(field.getKey(), field.getValue().deepCopy());
                }
            });
        } else {
            fields.forEach((name, pointer) -> copy(unit, pointer, document, name));
        }
        return document;
    }

    private static void copy(ObjectNode from, JsonPointer pointer, ObjectNode to, String name) {
        JsonNode value = from.at(pointer);
        if (!value.isMissingNode()) {
            to.set(name, value.deepCopy());
        }
    }

    private static void remove(ObjectNode document, JsonPointer pointer) {
        JsonNode parent = document.at(pointer.head());
        if (parent.isObject()) {
            ((ObjectNode) parent).remove(pointer.last().getMatchingProperty());
        }
    }

    private ObjectNode flattened(ObjectNode document) {
        ObjectNode flat = document.objectNode();
        flattenInto(flat, "", "", document);
        return flat;
    }

    private void flattenInto(ObjectNode flat, String prefix, String path, ObjectNode object) {
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = prefix + field.getKey();
            String fieldPath = path + "/" + field.getKey();
            if (field.getValue().isObject() && !field.getValue().isEmpty()) {
                flattenInto(flat, name + FLATTEN_SEPARATOR, fieldPath, (ObjectNode) field.getValue());
            } else if (flat.has(name)) {
                throw new DerivationException(container, fieldPath, "flattened name " + name
                        + " is already taken by another field");
            } else {
                flat.set(name, field.getValue());
            }
        }
    }

    private PartitionKey partitionKeyOf(ObjectNode document) {
        try {
            return PartitionKey.fromJson(document.at(partitionKey));
        } catch (IllegalArgumentException e) {
            throw new DerivationException(container, partitionKey.toString(), e.getMessage());
        }
    }
}
