package io.docmirror.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * A reader's position: for each feed range it reads, the LSN of the last change it has read. Opaque to users: an
 * URL-safe string that survives restarts and can be stored anywhere (a file, a database row, a Kafka transaction).
 */
public record ContinuationToken(String container, Map<Integer, Long> positions) {
    private static final int FORMAT = 1;

    public ContinuationToken {
        requireNonNull(container, "container is null");
        positions = Collections.unmodifiableMap(new TreeMap<>(positions));
    }

    public String encode() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("v", FORMAT);
        json.put("c", container);
        ObjectNode ranges = json.putObject("p");
        positions.forEach((range, lsn) -> ranges.put(Integer.toString(range), lsn));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @throws IllegalArgumentException when the text is not a token this version wrote, with the reason
     */
    public static ContinuationToken decode(String token) {
        requireNonNull(token, "token is null");
        JsonNode json;
        try {
            json = StoreJson.mapper().readTree(Base64.getUrlDecoder().decode(token));
        } catch (IllegalArgumentException | IOException e) {
            throw malformed(token, "not a docmirror continuation token");
        }
        if (json == null || !json.isObject() || json.path("v").asInt() != FORMAT || !json.path("c").isTextual()
                || !json.path("p").isObject()) {
            throw malformed(token, "not a docmirror continuation token of format " + FORMAT);
        }
        Map<Integer, Long> positions = new TreeMap<>();
        for (var entries = json.get("p").fields(); entries.hasNext(); ) {
            var entry = entries.next();
            if (!entry.getKey().matches("\\d{1,9}") || !entry.getValue().canConvertToLong()
                    || entry.getValue().longValue() < 0) {
                throw malformed(token, "bad position " + entry.getKey() + "=" + entry.getValue());
            }
            positions.put(Integer.parseInt(entry.getKey()), entry.getValue().longValue());
        }
        return new ContinuationToken(json.get("c").textValue(), positions);
    }

    private static IllegalArgumentException malformed(String token, String reason) {
        String shown = token.length() > 40 ? token.substring(0, 40) + "..." : token;
        return new IllegalArgumentException("Cannot read continuation token '" + shown + "': " + reason);
    }

    @Override
    public String toString() {
        return encode();
    }
}
