package io.docmirror.store.server;

/**
 * One of the protocols the store's HTTP server speaks (docmirror's own routes, Cosmos DB's gateway): the paths it
 * serves, how a request proves its key, its routes, and the shape of its errors.
 */
public interface Protocol {
    /** Whether the request's path is one of this protocol's. */
    boolean addresses(ApiRequest request);

    /** Answers the request: the key check, then the route; every failure as this protocol's error. */
    ApiResponse serve(ApiRequest request);

    /** The route pattern that serves the request, such as {@code /containers/{container}}, as the metrics count it. */
    String routeOf(ApiRequest request);

    /** An error the server answers itself (too many queries waiting, say), in this protocol's shape. */
    ApiResponse inShape(ApiResponse error);

    /** Whether the request is a query, which runs on the queries' threads. */
    boolean isQuery(ApiRequest request);
}
