package io.docmirror.store.server.docmirror;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.LoginThrottle;
import io.docmirror.store.server.Protocol;
import io.docmirror.store.server.Router;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * docmirror's own routes ({@code /containers} and below, docs/http-api.md): a key as {@code Authorization: Bearer
 * <key>} ({@link Authenticator}), errors as {@code {"code":"CONFLICT","status":409,"message":...}}. It answers every
 * path no other protocol has, with a 404 where it has none either.
 */
public final class DocmirrorProtocol implements Protocol {
    private final Authenticator authenticator;
    private final LoginThrottle throttle;
    private final Router router;

    public DocmirrorProtocol(Authenticator authenticator, LoginThrottle throttle, StoreEndpoints endpoints) {
        this.authenticator = requireNonNull(authenticator, "authenticator is null");
        this.throttle = requireNonNull(throttle, "throttle is null");
        this.router = endpoints.router();
    }

    @Override
    public boolean addresses(ApiRequest request) {
        return true;
    }

    @Override
    public ApiResponse serve(ApiRequest request) {
        Optional<ApiResponse> refusal = refusal(request);
        return refusal.isPresent() ? refusal.get() : router.serve(request);
    }

    @Override
    public String routeOf(ApiRequest request) {
        return router.routeOf(request);
    }

    @Override
    public ApiResponse inShape(ApiResponse error) {
        return error;
    }

    @Override
    public boolean isQuery(ApiRequest request) {
        return false;
    }

    /** The answer to a request that may not go on: a missing or wrong key (held back when wrong keys pile up). */
    private Optional<ApiResponse> refusal(ApiRequest request) {
        return switch (authenticator.check(request)) {
            case ALLOWED -> Optional.empty();
            case MISSING_KEY -> Optional.of(ApiResponse.error(401, StoreErrorCode.UNAUTHORIZED.name(),
                    "Missing 'Authorization: Bearer <key>' header"));
            case WRONG_KEY -> Optional.of(ApiResponse.error(401, StoreErrorCode.UNAUTHORIZED.name(),
                    "The key in the Authorization header is not valid")
                    .delayedBy(throttle.recordFailure(request.client())));
            case READ_ONLY_KEY_CANNOT_WRITE -> Optional.of(ApiResponse.error(403, StoreErrorCode.FORBIDDEN.name(),
                    "The read-only key cannot " + request.method() + "; use the primary key"));
        };
    }
}
