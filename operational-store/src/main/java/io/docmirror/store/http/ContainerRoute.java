package io.docmirror.store.http;

import java.io.IOException;
import java.util.Map;

/**
 * A read-only route below {@code /containers/{container}/} that another module serves through the store's HTTP
 * server, with the same keys, error format and threads (the change feed: {@code /containers/{c}/changefeed}); it
 * answers GET and HEAD. A page's size is the {@code maxItems} query parameter, which the server caps at
 * {@code store.http.max-page-items} (and sets to it when absent). Throw {@code StoreException} for errors with a
 * status, {@code IllegalArgumentException} for a bad request.
 */
@FunctionalInterface
public interface ContainerRoute {
    /** @return the JSON response of a GET with these query parameters */
    byte[] get(String container, Map<String, String> query) throws IOException;
}
