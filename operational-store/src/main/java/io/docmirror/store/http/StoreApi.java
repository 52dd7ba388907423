package io.docmirror.store.http;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Serves one request, whatever carries it: the login throttle, then the key check, then the route; and every
 * failure turned into the API's error answer ({@code {"code":..., "status":..., "message":...}}). A 5xx is the
 * store's or the server's fault, never the request's, and is logged with its cause.
 */
final class StoreApi {
    private static final Logger log = LoggerFactory.getLogger(StoreApi.class);

    private final Authenticator authenticator;
    private final LoginThrottle throttle;
    private final Router router;

    StoreApi(Authenticator authenticator, LoginThrottle throttle, Router router) {
        this.authenticator = requireNonNull(authenticator, "authenticator is null");
        this.throttle = requireNonNull(throttle, "throttle is null");
        this.router = requireNonNull(router, "router is null");
    }

    /** The route pattern that serves the request, as the metrics count it. */
    String routeOf(ApiRequest request) {
        return router.routeOf(request);
    }

    ApiResponse serve(ApiRequest request) {
        try {
            Optional<ApiResponse> refusal = refusal(request);
            return refusal.isPresent() ? refusal.get() : router.dispatch(request);
        } catch (StoreException e) {
            if (e.httpStatus() >= 500) {
                log.error("Request {} {} failed", request.method(), request.rawPath(), e);
            }
            return ApiResponse.error(e.httpStatus(), e.code().name(), e.getMessage());
        } catch (IllegalArgumentException e) {
            // The contract of ContainerRoute and of the value types: an IllegalArgumentException is a bad request.
            return ApiResponse.error(400, StoreErrorCode.BAD_REQUEST.name(),
                    Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName()));
        } catch (IOException | RuntimeException e) {
            log.error("Request {} {} failed", request.method(), request.rawPath(), e);
            return ApiResponse.error(500, StoreErrorCode.INTERNAL_ERROR.name(),
                    "Internal error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** The answer to a request that may not go on: a locked-out client, a missing or wrong key. */
    private Optional<ApiResponse> refusal(ApiRequest request) {
        if (!authenticator.requiresKeys()) {
            return Optional.empty();
        }
        Optional<Duration> lockout = throttle.lockout(request.client());
        if (lockout.isPresent()) {
            long seconds = Math.max(1, (lockout.get().toMillis() + 999) / 1000);
            return Optional.of(ApiResponse.error(429, "TOO_MANY_REQUESTS", "Too many wrong keys from this address; "
                            + "it is locked out for " + seconds + " more seconds (store.http.login-failures, "
                            + "store.http.login-lockout-ms)")
                    .withHeader("Retry-After", Long.toString(seconds)));
        }
        return switch (authenticator.check(request)) {
            case ALLOWED -> Optional.empty();
            case MISSING_KEY -> Optional.of(ApiResponse.error(401, StoreErrorCode.UNAUTHORIZED.name(),
                    "Missing 'Authorization: Bearer <key>' header"));
            case WRONG_KEY -> {
                throttle.recordFailure(request.client());
                yield Optional.of(ApiResponse.error(401, StoreErrorCode.UNAUTHORIZED.name(),
                        "The key in the Authorization header is not valid"));
            }
            case READ_ONLY_KEY_CANNOT_WRITE -> Optional.of(ApiResponse.error(403, StoreErrorCode.FORBIDDEN.name(),
                    "The read-only key cannot " + request.method() + "; use the primary key"));
        };
    }
}
