package io.docmirror.mirror.source;

import io.docmirror.store.ContainerProperties;

import java.util.List;
import java.util.Optional;

/**
 * The containers a mirror's source holds, with their settings (the analytical TTL says which are mirrored): the
 * store's ({@code StoreClient::listContainers}) or a Cosmos DB account's.
 */
@FunctionalInterface
public interface SourceContainers {
    /** @throws io.docmirror.store.StoreException a retriable one when the source does not answer for now */
    List<ContainerProperties> listContainers();

    /**
     * The container named {@code id} as the source holds it now; empty when it holds none of that name.
     *
     * @throws io.docmirror.store.StoreException a retriable one when the source does not answer for now
     */
    default Optional<ContainerProperties> readContainer(String id) {
        return listContainers().stream().filter(container -> container.id().equals(id)).findFirst();
    }
}
