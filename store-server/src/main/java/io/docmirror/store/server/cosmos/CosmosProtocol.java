package io.docmirror.store.server.cosmos;

import io.docmirror.store.StoreException;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.LoginThrottle;
import io.docmirror.store.server.Protocol;
import io.docmirror.store.server.Router;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Cosmos DB's gateway protocol at {@code /} and below {@code /dbs} ({@link CosmosEndpoints}): requests signed with
 * Cosmos DB's master-key signature ({@link CosmosAuthorization}), errors in Cosmos DB's shape
 * ({@code {"code":"NotFound","message":...}}), and on every answer the headers the SDKs read
 * ({@code x-ms-activity-id}, {@code x-ms-request-charge}).
 */
public final class CosmosProtocol implements Protocol {
    private static final String ACTIVITY_ID = "x-ms-activity-id";
    /** A client's activity id is echoed only when it looks like one (a GUID), so no header can carry anything else. */
    private static final Pattern ACTIVITY_ID_FORM = Pattern.compile("[0-9A-Fa-f-]{1,64}");
    private static final ApiResponse.ErrorShape COSMOS_ERROR = (status, code, message) -> CosmosWire.error(status,
            message);

    /**
     * What a Cosmos DB SDK in direct mode (the Java and .NET SDKs' default) is told when it asks where a partition's
     * replicas are ({@code GET /addresses/...}) to open TCP connections to them: the store has no replicas to connect
     * to, only the gateway.
     */
    public static final String DIRECT_MODE_REFUSAL = "docmirror's store speaks Cosmos DB's gateway mode only, not "
            + "direct mode: build the client with gatewayMode() (Java: new CosmosClientBuilder()...gatewayMode(); "
            + ".NET: new CosmosClientOptions { ConnectionMode = ConnectionMode.Gateway })";

    private final CosmosAuthorization authorization;
    private final LoginThrottle throttle;
    private final Router router;

    public CosmosProtocol(CosmosAuthorization authorization, LoginThrottle throttle, CosmosEndpoints endpoints) {
        this.authorization = requireNonNull(authorization, "authorization is null");
        this.throttle = requireNonNull(throttle, "throttle is null");
        this.router = endpoints.router();
    }

    @Override
    public boolean addresses(ApiRequest request) {
        return isDirectModeAddressLookup(request) || CosmosResourcePath.isCosmos(request.segments());
    }

    private static boolean isDirectModeAddressLookup(ApiRequest request) {
        return !request.segments().isEmpty() && request.segments().get(0).equals("addresses");
    }

    @Override
    public ApiResponse serve(ApiRequest request) {
        if (isDirectModeAddressLookup(request)) {
            // Before any key check: the answer tells the client how to reach the store, nothing of what it holds.
            return error(400, DIRECT_MODE_REFUSAL).withHeader(ACTIVITY_ID, UUID.randomUUID().toString());
        }
        String activityId = request.header(ACTIVITY_ID).filter(id -> ACTIVITY_ID_FORM.matcher(id).matches())
                .orElseGet(() -> UUID.randomUUID().toString());
        Optional<ApiResponse> refusal = authorization.requiresSignature() ? refusal(request) : Optional.empty();
        return (refusal.isPresent() ? refusal.get() : inShape(router.serve(request)))
                .withHeader(ACTIVITY_ID, activityId)
                .withHeader("x-ms-request-charge", "1");
    }

    @Override
    public String routeOf(ApiRequest request) {
        return router.routeOf(request);
    }

    @Override
    public ApiResponse inShape(ApiResponse error) {
        return error.inShape(COSMOS_ERROR);
    }

    @Override
    public boolean isQuery(ApiRequest request) {
        try {
            return request.method().equals("POST") && CosmosQueries.isQuery(request);
        } catch (StoreException e) {
            // A malformed query header: the route answers it with its 400, on the requests' threads.
            return false;
        }
    }

    private static ApiResponse error(int status, String message) {
        return ApiResponse.error(status, "", message, COSMOS_ERROR);
    }

    /** Cosmos DB's answers to a request whose signature does not allow it, in Cosmos DB's words where it has them. */
    private Optional<ApiResponse> refusal(ApiRequest request) {
        CosmosResourcePath resource = new CosmosResourcePath(request.segments());
        CosmosAuthorization.Verdict verdict = authorization.check(request, resource);
        Duration delay = verdict == CosmosAuthorization.Verdict.MALFORMED_SIGNATURE
                || verdict == CosmosAuthorization.Verdict.WRONG_SIGNATURE
                ? throttle.recordFailure(request.client()) : Duration.ZERO;
        return verdict(request, resource, verdict).map(refusal -> refusal.delayedBy(delay));
    }

    private static Optional<ApiResponse> verdict(ApiRequest request, CosmosResourcePath resource,
            CosmosAuthorization.Verdict verdict) {
        return switch (verdict) {
            case ALLOWED -> Optional.empty();
            case MISSING_SIGNATURE -> Optional.of(error(401, "Required header authorization is missing: sign "
                    + "requests with the account key (type=master&ver=1.0&sig=...)"));
            case MALFORMED_SIGNATURE -> Optional.of(error(401, "The authorization header is not of the form "
                    + "type=master&ver=1.0&sig=<base64 HMAC-SHA256>, URL-encoded"));
            case MISSING_DATE -> Optional.of(error(401, "The authorization token mandates the "
                    + CosmosAuthorization.DATE_HEADER + " header, an RFC 1123 date"));
            case DATE_OUT_OF_RANGE -> Optional.of(error(403, "The authorization token is not valid at the current "
                    + "time: " + CosmosAuthorization.DATE_HEADER + " '"
                    + request.header(CosmosAuthorization.DATE_HEADER).orElse("") + "' is not an RFC 1123 date within "
                    + CosmosAuthorization.ALLOWED_SKEW.toMinutes() + " minutes of the server's time"));
            case WRONG_SIGNATURE -> Optional.of(error(401, "The input authorization token can't serve the request: "
                    + "the signature over verb, resource type '" + resource.type() + "', resource link '"
                    + resource.link() + "' and date matches no key"));
            case READ_ONLY_KEY_CANNOT_WRITE -> Optional.of(error(403, "The read-only key cannot " + request.method()
                    + " " + request.rawPath() + "; use the read-write key"));
        };
    }
}
