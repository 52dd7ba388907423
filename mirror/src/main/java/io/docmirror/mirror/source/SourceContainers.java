package io.docmirror.mirror.source;

import io.docmirror.store.ContainerProperties;

import java.util.List;

/**
 * The containers a mirror's source holds, with their settings (the analytical TTL says which are mirrored): the
 * store's ({@code StoreClient::listContainers}) or a Cosmos DB account's.
 */
@FunctionalInterface
public interface SourceContainers {
    /** @throws io.docmirror.store.StoreException a retriable one when the source does not answer for now */
    List<ContainerProperties> listContainers();
}
