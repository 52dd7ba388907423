package io.docmirror.store.server;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Finds a request's handler by path and method. Paths are patterns of segments such as
 * {@code /containers/{container}/items/{id}}, where a literal segment is preferred to a variable. A path that no
 * pattern matches is 404; a method its pattern lacks is 405 with an {@code Allow} header naming those it has (as
 * RFC 9110 asks); {@code HEAD} is answered wherever {@code GET} is, by the GET handler (the connection leaves out
 * the body).
 */
public final class Router {
    private static final Logger log = LoggerFactory.getLogger(Router.class);
    static final List<String> METHOD_ORDER = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
    public static final String NO_ROUTE = "(none)";

    /** Answers a request; {@code path} holds the values of the pattern's variables, by name. */
    @FunctionalInterface
    public interface Handler {
        ApiResponse handle(ApiRequest request, Map<String, String> path) throws IOException;
    }

    private final List<Route> routes;

    private Router(List<Route> routes) {
        this.routes = List.copyOf(routes);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The pattern that serves the request's path, such as {@code /containers/{container}}, or {@code (none)}. */
    public String routeOf(ApiRequest request) {
        Route route = match(request.segments());
        return route == null ? NO_ROUTE : "/" + String.join("/", route.pattern());
    }

    /**
     * Answers the request by its route, and every failure as the API's error: a {@link StoreException} with its status,
     * an {@link IllegalArgumentException} (the value types' contract) as 400, anything else as 500. A 5xx is the
     * store's or the server's fault, never the request's, and is logged with its cause.
     */
    public ApiResponse serve(ApiRequest request) {
        try {
            return dispatch(request);
        } catch (StoreException e) {
            if (e.httpStatus() >= 500) {
                log.error("Request {} {} failed", request.method(), request.rawPath(), e);
            }
            return ApiResponse.error(e.httpStatus(), e.code().name(), e.getMessage());
        } catch (IllegalArgumentException e) {
            return ApiResponse.error(400, StoreErrorCode.BAD_REQUEST.name(),
                    Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName()));
        } catch (IOException | RuntimeException e) {
            log.error("Request {} {} failed", request.method(), request.rawPath(), e);
            return ApiResponse.error(500, StoreErrorCode.INTERNAL_ERROR.name(),
                    "Internal error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private ApiResponse dispatch(ApiRequest request) throws IOException {
        List<String> segments = request.segments();
        Route route = match(segments);
        if (route == null) {
            return ApiResponse.error(404, "NOT_FOUND",
                    "No such resource: " + request.rawPath() + " (see docs/http-api.md)");
        }
        String method = request.method().equals("HEAD") && !route.handlers.containsKey("HEAD")
                ? "GET" : request.method();
        Handler handler = route.handlers.get(method);
        if (handler == null) {
            String allowed = allowed(route);
            return ApiResponse.error(405, "METHOD_NOT_ALLOWED", "Method " + request.method()
                            + " is not supported on " + request.rawPath() + "; it allows " + allowed
                            + " (see docs/http-api.md)")
                    .withHeader("Allow", allowed);
        }
        return handler.handle(request, route.variables(segments));
    }

    private Route match(List<String> segments) {
        return routes.stream()
                .filter(candidate -> candidate.matches(segments))
                .max(Route::bySpecificity)
                .orElse(null);
    }

    private static String allowed(Route route) {
        List<String> methods = new ArrayList<>(route.handlers.keySet());
        if (methods.contains("GET") && !methods.contains("HEAD")) {
            methods.add("HEAD");
        }
        methods.sort(Comparator.comparingInt(method -> METHOD_ORDER.indexOf(method) < 0
                ? METHOD_ORDER.size() : METHOD_ORDER.indexOf(method)));
        return String.join(", ", methods);
    }

    /** One path pattern with its handler per method. */
    private record Route(List<String> pattern, Map<String, Handler> handlers) {
        boolean matches(List<String> segments) {
            if (segments.size() != pattern.size()) {
                return false;
            }
            for (int index = 0; index < pattern.size(); index++) {
                if (!isVariable(pattern.get(index)) && !pattern.get(index).equals(segments.get(index))) {
                    return false;
                }
            }
            return true;
        }

        Map<String, String> variables(List<String> segments) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int index = 0; index < pattern.size(); index++) {
                String segment = pattern.get(index);
                if (isVariable(segment)) {
                    values.put(segment.substring(1, segment.length() - 1), segments.get(index));
                }
            }
            return values;
        }

        /** Of two patterns that match the same path, the one with a literal where the other has a variable wins. */
        static int bySpecificity(Route one, Route other) {
            for (int index = 0; index < Math.min(one.pattern.size(), other.pattern.size()); index++) {
                boolean literal = !isVariable(one.pattern.get(index));
                boolean otherLiteral = !isVariable(other.pattern.get(index));
                if (literal != otherLiteral) {
                    return literal ? 1 : -1;
                }
            }
            return 0;
        }

        private static boolean isVariable(String segment) {
            return segment.startsWith("{") && segment.endsWith("}");
        }
    }

    /** Collects the routes; each pattern and method is given once. */
    public static final class Builder {
        private final Map<List<String>, Map<String, Handler>> routes = new LinkedHashMap<>();

        /**
         * @param pattern e.g. {@code /containers/{container}/items/{id}}
         * @throws IllegalArgumentException when the pattern already has a handler for the method
         */
        public Builder add(String method, String pattern, Handler handler) {
            List<String> segments = pattern.equals("/")
                    ? List.of() : List.of(pattern.replaceFirst("^/", "").split("/"));
            Map<String, Handler> handlers = routes.computeIfAbsent(segments, key -> new LinkedHashMap<>());
            if (handlers.putIfAbsent(method, handler) != null) {
                throw new IllegalArgumentException("Route " + method + " " + pattern + " is given twice");
            }
            return this;
        }

        public Router build() {
            return new Router(routes.entrySet().stream()
                    .map(entry -> new Route(entry.getKey(), Map.copyOf(entry.getValue())))
                    .toList());
        }
    }
}
