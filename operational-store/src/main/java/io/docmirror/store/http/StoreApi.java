package io.docmirror.store.http;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Serves one request, whatever carries it: the key check (the login throttle holding back wrong keys' answers), then
 * the route; and every failure turned into the API's error answer ({@code {"code":..., "status":..., "message":...}}).
 * A 5xx is the store's or the server's fault, never the request's, and is logged with its cause.
 *
 * <p>The Cosmos DB routes ({@code /} and below {@code /dbs}) are signed with Cosmos DB's master-key signature instead
 * of a bearer key, answer errors in Cosmos DB's shape ({@code {"code":"NotFound","message":...}}) and carry the
 * headers the SDKs read on every answer ({@code x-ms-activity-id}, {@code x-ms-request-charge}).
 */
final class StoreApi {
    private static final Logger log = LoggerFactory.getLogger(StoreApi.class);
    private static final String ACTIVITY_ID = "x-ms-activity-id";
    /** A client's activity id is echoed only when it looks like one (a GUID), so no header can carry anything else. */
    private static final Pattern ACTIVITY_ID_FORM = Pattern.compile("[0-9A-Fa-f-]{1,64}");

    /**
     * What a Cosmos DB SDK in direct mode (the Java and .NET SDKs' default) is told when it asks where a partition's
     * replicas are ({@code GET /addresses/...}) to open TCP connections to them: the store has no replicas to connect
     * to, only the gateway.
     */
    static final String DIRECT_MODE_REFUSAL = "docmirror's store speaks Cosmos DB's gateway mode only, not direct "
            + "mode: build the client with gatewayMode() (Java: new CosmosClientBuilder()...gatewayMode(); .NET: "
            + "new CosmosClientOptions { ConnectionMode = ConnectionMode.Gateway })";

    private final Authenticator authenticator;
    private final CosmosAuthorization cosmosAuthorization;
    private final LoginThrottle throttle;
    private final Router router;

    StoreApi(Authenticator authenticator, CosmosAuthorization cosmosAuthorization, LoginThrottle throttle,
            Router router) {
        this.authenticator = requireNonNull(authenticator, "authenticator is null");
        this.cosmosAuthorization = requireNonNull(cosmosAuthorization, "cosmosAuthorization is null");
        this.throttle = requireNonNull(throttle, "throttle is null");
        this.router = requireNonNull(router, "router is null");
    }

    private static boolean isDirectModeAddressLookup(ApiRequest request) {
        return !request.segments().isEmpty() && request.segments().get(0).equals("addresses");
    }

    /** The route pattern that serves the request, as the metrics count it. */
    String routeOf(ApiRequest request) {
        return router.routeOf(request);
    }

    ApiResponse serve(ApiRequest request) {
        if (isDirectModeAddressLookup(request)) {
            // Before any key check: the answer tells the client how to reach the store, nothing of what it holds.
            return ApiResponse.cosmosError(400, DIRECT_MODE_REFUSAL).withHeader(ACTIVITY_ID,
                    UUID.randomUUID().toString());
        }
        if (!CosmosResourcePath.isCosmos(request.segments())) {
            return answer(request);
        }
        String activityId = request.header(ACTIVITY_ID).filter(id -> ACTIVITY_ID_FORM.matcher(id).matches())
                .orElseGet(() -> UUID.randomUUID().toString());
        return answer(request).inCosmosShape()
                .withHeader(ACTIVITY_ID, activityId)
                .withHeader("x-ms-request-charge", "1");
    }

    private ApiResponse answer(ApiRequest request) {
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

    /** The answer to a request that may not go on: a missing or wrong key (held back when wrong keys pile up). */
    private Optional<ApiResponse> refusal(ApiRequest request) {
        boolean cosmos = CosmosResourcePath.isCosmos(request.segments());
        if (cosmos ? !cosmosAuthorization.requiresSignature() : !authenticator.requiresKeys()) {
            return Optional.empty();
        }
        if (cosmos) {
            return cosmosRefusal(request);
        }
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

    /** Cosmos DB's answers to a request whose signature does not allow it, in Cosmos DB's words where it has them. */
    private Optional<ApiResponse> cosmosRefusal(ApiRequest request) {
        CosmosResourcePath resource = new CosmosResourcePath(request.segments());
        CosmosAuthorization.Verdict verdict = cosmosAuthorization.check(request, resource);
        Duration delay = verdict == CosmosAuthorization.Verdict.MALFORMED_SIGNATURE
                || verdict == CosmosAuthorization.Verdict.WRONG_SIGNATURE
                ? throttle.recordFailure(request.client()) : Duration.ZERO;
        return cosmosVerdict(request, resource, verdict).map(refusal -> refusal.delayedBy(delay));
    }

    private static Optional<ApiResponse> cosmosVerdict(ApiRequest request, CosmosResourcePath resource,
            CosmosAuthorization.Verdict verdict) {
        return switch (verdict) {
            case ALLOWED -> Optional.empty();
            case MISSING_SIGNATURE -> Optional.of(ApiResponse.cosmosError(401, "Required header authorization is "
                    + "missing: sign requests with the account key (type=master&ver=1.0&sig=...)"));
            case MALFORMED_SIGNATURE -> Optional.of(ApiResponse.cosmosError(401, "The authorization header is not "
                    + "of the form type=master&ver=1.0&sig=<base64 HMAC-SHA256>, URL-encoded"));
            case MISSING_DATE -> Optional.of(ApiResponse.cosmosError(401, "The authorization token mandates the "
                    + CosmosAuthorization.DATE_HEADER + " header, an RFC 1123 date"));
            case DATE_OUT_OF_RANGE -> Optional.of(ApiResponse.cosmosError(403, "The authorization token is not "
                    + "valid at the current time: " + CosmosAuthorization.DATE_HEADER + " '"
                    + request.header(CosmosAuthorization.DATE_HEADER).orElse("") + "' is not an RFC 1123 date within "
                    + CosmosAuthorization.ALLOWED_SKEW.toMinutes() + " minutes of the server's time"));
            case WRONG_SIGNATURE -> Optional.of(ApiResponse.cosmosError(401, "The input authorization token can't "
                    + "serve the request: the signature over verb, resource type '" + resource.type()
                    + "', resource link '" + resource.link() + "' and date matches no key"));
            case READ_ONLY_KEY_CANNOT_WRITE -> Optional.of(ApiResponse.cosmosError(403, "The read-only key cannot "
                    + request.method() + " " + request.rawPath() + "; use the read-write key"));
        };
    }
}
