package io.docmirror.store.server.cosmos;

import io.docmirror.store.server.ApiRequest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Checks Cosmos DB's master-key authorization: the {@code Authorization} header is the URL-encoded
 * {@code type=master&ver=1.0&sig=<base64>}, where the signature is the HMAC-SHA256, under the base64-decoded key, of
 * five lines: the verb, the resource type (the path's last type segment, such as {@code docs}), the resource link
 * ({@code dbs/shop/colls/orders/docs/o1}, or for a request the SDK addresses by resource id, that id in lower case),
 * the {@code x-ms-date} header and the {@code Date} header, the last four lower-cased as the SDKs write them.
 *
 * <p>A request whose {@code x-ms-date} is more than 15 minutes from the server's clock is refused, as Cosmos DB
 * refuses it, so a captured request cannot be replayed later. The read-write key allows everything; the read-only
 * key reads only: GET, HEAD and queries (a POST to a container's documents that asks a query). Signatures are compared in constant time.
 */
public final class CosmosAuthorization {
    /** What a request's signature allows, and why not. */
    enum Verdict {
        ALLOWED,
        MISSING_SIGNATURE,
        MALFORMED_SIGNATURE,
        MISSING_DATE,
        DATE_OUT_OF_RANGE,
        WRONG_SIGNATURE,
        READ_ONLY_KEY_CANNOT_WRITE
    }

    /**
     * The Azure Cosmos DB emulator's well-known key, which Microsoft publishes so that tools and tests written for
     * the emulator run without configuration (store.http.accept-emulator-key).
     */
    static final String EMULATOR_KEY =
            "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
    static final Duration ALLOWED_SKEW = Duration.ofMinutes(15);
    static final String DATE_HEADER = "x-ms-date";

    private final List<byte[]> readWriteKeys;
    private final Optional<byte[]> readOnlyKey;
    private final Clock clock;

    /**
     * @param primaryKey the read-write key (base64), if any
     * @param readOnlyKey the read-only key (base64), if any
     * @param acceptEmulatorKey whether the emulator's well-known key is a read-write key too
     */
    public CosmosAuthorization(Optional<String> primaryKey, Optional<String> readOnlyKey, boolean acceptEmulatorKey,
            Clock clock) {
        List<byte[]> keys = new ArrayList<>();
        primaryKey.map(CosmosAuthorization::decodeKey).ifPresent(keys::add);
        if (acceptEmulatorKey) {
            keys.add(decodeKey(EMULATOR_KEY));
        }
        this.readWriteKeys = List.copyOf(keys);
        this.readOnlyKey = readOnlyKey.map(CosmosAuthorization::decodeKey);
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Whether requests must be signed: a key is configured or the emulator's key is accepted. */
    boolean requiresSignature() {
        return !readWriteKeys.isEmpty();
    }

    Verdict check(ApiRequest request, CosmosResourcePath resource) {
        Optional<String> header = request.header("Authorization");
        if (header.isEmpty() || header.get().isBlank()) {
            return Verdict.MISSING_SIGNATURE;
        }
        Optional<byte[]> signature = signature(header.get());
        if (signature.isEmpty()) {
            return Verdict.MALFORMED_SIGNATURE;
        }
        Optional<String> date = request.header(DATE_HEADER);
        if (date.isEmpty()) {
            return Verdict.MISSING_DATE;
        }
        if (!withinSkew(date.get())) {
            return Verdict.DATE_OUT_OF_RANGE;
        }
        String httpDate = request.header("Date").orElse("");
        for (String link : resource.signedLinks()) {
            String payload = request.method().toLowerCase(Locale.ROOT) + "\n"
                    + resource.type().toLowerCase(Locale.ROOT) + "\n"
                    + link + "\n"
                    + date.get().toLowerCase(Locale.ROOT) + "\n"
                    + httpDate.toLowerCase(Locale.ROOT) + "\n";
            for (byte[] key : readWriteKeys) {
                if (MessageDigest.isEqual(hmac(key, payload), signature.get())) {
                    return Verdict.ALLOWED;
                }
            }
            if (readOnlyKey.isPresent() && MessageDigest.isEqual(hmac(readOnlyKey.get(), payload), signature.get())) {
                return request.isRead() || isQuery(request, resource) ? Verdict.ALLOWED
                        : Verdict.READ_ONLY_KEY_CANNOT_WRITE;
            }
        }
        return Verdict.WRONG_SIGNATURE;
    }

    /**
     * Whether the request is a query of a container's documents: a POST, but one that only reads, so the read-only
     * key may send it, as Cosmos DB's read-only keys may. Only the documents feed answers a POST with a query.
     */
    private static boolean isQuery(ApiRequest request, CosmosResourcePath resource) {
        return request.method().equals("POST") && resource.type().equals("docs") && resource.segments().size() % 2 == 1
                && CosmosQueries.isQuery(request);
    }

    /** The signature's bytes from {@code type=master&ver=1.0&sig=...} (URL-encoded or not); empty when malformed. */
    private static Optional<byte[]> signature(String header) {
        // The SDKs URL-encode the header; a hand-made one may not be, and then its base64 '+' must stay a '+'.
        String decoded;
        try {
            decoded = header.contains("%") ? URLDecoder.decode(header, StandardCharsets.UTF_8) : header;
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String pair : decoded.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                fields.putIfAbsent(pair.substring(0, equals), pair.substring(equals + 1));
            }
        }
        if (!"master".equals(fields.get("type")) || !"1.0".equals(fields.get("ver")) || !fields.containsKey("sig")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Base64.getDecoder().decode(fields.get("sig")));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private boolean withinSkew(String date) {
        Instant sent;
        try {
            sent = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            return false;
        }
        Duration skew = Duration.between(sent, clock.instant()).abs();
        return skew.compareTo(ALLOWED_SKEW) <= 0;
    }

    private static byte[] hmac(byte[] key, String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(payload.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Every Java platform has HmacSHA256", e);
        }
    }

    /**
     * A key is base64 (or base64url, which the configuration allows too) and its bytes are the HMAC key, as the
     * SDKs decode it. A key whose length no base64 has (33 characters, say) signs with its text's bytes.
     */
    private static byte[] decodeKey(String key) {
        try {
            return key.contains("-") || key.contains("_")
                    ? Base64.getUrlDecoder().decode(key)
                    : Base64.getDecoder().decode(key);
        } catch (IllegalArgumentException e) {
            return key.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
