package io.docmirror.store.server.docmirror;

import java.io.IOException;
import java.util.Map;

/**
 * A read-only route below {@code /containers/{container}/} that a caller of the store's HTTP server adds to
 * docmirror's routes, with the same keys, error format and threads; it answers GET and HEAD. A page's size is the {@code maxItems} query parameter, which the server caps at
 * {@code store.http.max-page-items} (and sets to it when absent). Throw {@code StoreException} for errors with a
 * status, {@code IllegalArgumentException} for a bad request.
 */
@FunctionalInterface
public interface ContainerRoute {
    /** @return the JSON response of a GET with these query parameters */
    byte[] get(String container, Map<String, String> query) throws IOException;
}
