package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.ValidatedDocument;

import java.util.List;

/**
 * The documents of a bulk write, checked against their container's rules ({@link EmbeddedStore#validateBulk}) but
 * not written: a loader checks its next batch while the store writes the current one, then
 * {@link EmbeddedStore#queueBulk queues} it.
 */
public final class ValidatedBulk {
    /** One document, checked: either the document or why it was refused. */
    record Validation(int index, ValidatedDocument document, StoreException failure) {
    }

    private final ContainerState container;
    private final List<byte[]> documents;
    private final List<Validation> validations;

    ValidatedBulk(ContainerState container, List<byte[]> documents, List<Validation> validations) {
        this.container = container;
        this.documents = documents;
        this.validations = validations;
    }

    /** The container the documents were checked for, as it was then. */
    ContainerState container() {
        return container;
    }

    /** The documents as given. */
    List<byte[]> documents() {
        return documents;
    }

    /** The outcome for each document, in their order. */
    List<Validation> validations() {
        return validations;
    }

    public int size() {
        return documents.size();
    }
}
