package io.docmirror.store.server;

import java.util.List;

/**
 * Serves one request, whatever carries it, by the protocol whose path it is: the first of the protocols that
 * addresses it, else the last, which answers what no protocol has (404).
 */
final class StoreApi {
    private final List<Protocol> protocols;

    /** @param protocols in the order they are asked; the last answers every request no other addresses */
    StoreApi(List<Protocol> protocols) {
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("The store's API needs at least one protocol");
        }
        this.protocols = List.copyOf(protocols);
    }

    ApiResponse serve(ApiRequest request) {
        return protocolOf(request).serve(request);
    }

    /** The route pattern that serves the request, as the metrics count it. */
    String routeOf(ApiRequest request) {
        return protocolOf(request).routeOf(request);
    }

    /** An answer the server gives itself, in the shape of the protocol the request is for. */
    ApiResponse inShape(ApiRequest request, ApiResponse error) {
        return protocolOf(request).inShape(error);
    }

    boolean isQuery(ApiRequest request) {
        return protocolOf(request).isQuery(request);
    }

    private Protocol protocolOf(ApiRequest request) {
        for (Protocol protocol : protocols.subList(0, protocols.size() - 1)) {
            if (protocol.addresses(request)) {
                return protocol;
            }
        }
        return protocols.get(protocols.size() - 1);
    }
}
