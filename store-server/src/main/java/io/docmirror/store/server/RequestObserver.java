package io.docmirror.store.server;

/**
 * Told of each answered request of the store's HTTP API, on the event loop that sent the answer: keep it short and
 * non-blocking (count it). The labels are bounded whatever clients send: the method is one the API knows or
 * {@code OTHER}, the route is the matched pattern ({@code /containers/{container}/items/{id}}) or {@code (none)}.
 */
@FunctionalInterface
public interface RequestObserver {
    RequestObserver NONE = (method, route, status, nanos) -> {
    };

    /**
     * @param nanos from the request's arrival in full to its answer's last byte handed to the socket
     */
    void answered(String method, String route, int status, long nanos);
}
