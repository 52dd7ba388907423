package io.docmirror.store.server.docmirror;

import io.docmirror.store.server.ApiRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/**
 * Checks the key a request carries ({@code Authorization: Bearer <key>}) against the configured keys: the primary
 * key allows everything, the read-only key GET and HEAD. Without keys every request passes (the server then
 * listens on 127.0.0.1 or ::1 only). Keys are compared as SHA-256 digests in constant time, so the time an answer
 * takes tells nothing about how much of a guess was right, not even its length.
 */
public final class Authenticator {
    /** What the key of a request allows. */
    enum Verdict {
        ALLOWED,
        MISSING_KEY,
        WRONG_KEY,
        READ_ONLY_KEY_CANNOT_WRITE
    }

    private static final String BEARER = "Bearer ";

    private final Optional<byte[]> primaryKeyDigest;
    private final Optional<byte[]> readOnlyKeyDigest;

    public Authenticator(Optional<String> primaryKey, Optional<String> readOnlyKey) {
        this.primaryKeyDigest = primaryKey.map(Authenticator::digest);
        this.readOnlyKeyDigest = readOnlyKey.map(Authenticator::digest);
    }

    Verdict check(ApiRequest request) {
        if (primaryKeyDigest.isEmpty()) {
            return Verdict.ALLOWED;
        }
        Optional<String> header = request.header("Authorization");
        if (header.isEmpty() || !header.get().startsWith(BEARER)) {
            return Verdict.MISSING_KEY;
        }
        byte[] presented = digest(header.get().substring(BEARER.length()));
        if (MessageDigest.isEqual(presented, primaryKeyDigest.get())) {
            return Verdict.ALLOWED;
        }
        if (readOnlyKeyDigest.isPresent() && MessageDigest.isEqual(presented, readOnlyKeyDigest.get())) {
            return request.isRead() ? Verdict.ALLOWED : Verdict.READ_ONLY_KEY_CANNOT_WRITE;
        }
        return Verdict.WRONG_KEY;
    }

    private static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }
}
