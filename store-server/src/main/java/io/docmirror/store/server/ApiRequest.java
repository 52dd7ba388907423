package io.docmirror.store.server;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import static java.util.Objects.requireNonNull;

/**
 * One HTTP request as the API's handlers see it, free of Netty: the method, the decoded path segments, the query
 * parameters, the headers and the whole body. Built from Netty's aggregated request, which it copies, so the handlers
 * run on other threads after Netty has released its buffers.
 */
public final class ApiRequest {
    private final String method;
    private final String rawPath;
    private final List<String> segments;
    private final Map<String, String> query;
    /** By name, ignoring case; the first value of each, as Netty read it: one character per byte. */
    private final Map<String, String> headers;
    private final byte[] body;
    private final InetAddress client;
    private final BooleanSupplier clientGone;

    private ApiRequest(String method, String uri, Map<String, String> headers, byte[] body, InetAddress client,
            BooleanSupplier clientGone) {
        this.method = requireNonNull(method, "method is null");
        int question = uri.indexOf('?');
        this.rawPath = question < 0 ? uri : uri.substring(0, question);
        this.segments = segments(rawPath);
        this.query = query(question < 0 ? null : uri.substring(question + 1));
        this.headers = headers;
        this.body = requireNonNull(body, "body is null");
        this.client = requireNonNull(client, "client is null");
        this.clientGone = requireNonNull(clientGone, "clientGone is null");
    }

    /**
     * Copies Netty's request.
     *
     * @throws StoreException 400 when the path or the query is not validly percent-encoded UTF-8
     */
    static ApiRequest from(FullHttpRequest request, InetAddress client, BooleanSupplier clientGone) {
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        request.headers().forEach(header -> headers.putIfAbsent(header.getKey(), header.getValue()));
        return new ApiRequest(request.method().name(), request.uri(), headers,
                ByteBufUtil.getBytes(request.content()), client, clientGone);
    }

    public String method() {
        return method;
    }

    /** Whether the client is gone (its connection closed), so that nobody waits for the answer any more. */
    public boolean clientGone() {
        return clientGone.getAsBoolean();
    }

    public boolean isRead() {
        return method.equals("GET") || method.equals("HEAD");
    }

    /** The path as sent, still percent-encoded. */
    public String rawPath() {
        return rawPath;
    }

    /** The path's segments, percent-decoded; empty segments ({@code //}) are skipped. */
    public List<String> segments() {
        return segments;
    }

    public Map<String, String> query() {
        return query;
    }

    public Optional<String> queryParameter(String name) {
        return Optional.ofNullable(query.get(name));
    }

    /**
     * A header's value, its bytes read as strict UTF-8 (HTTP carries bytes; most clients send ASCII, and a raw
     * {@code ["日本"]} from curl is UTF-8).
     *
     * @throws StoreException 400 when the value is not UTF-8
     */
    public Optional<String> header(String name) {
        String latin1 = headers.get(name);
        if (latin1 == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(strictUtf8(latin1.getBytes(StandardCharsets.ISO_8859_1)));
        } catch (CharacterCodingException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header " + name
                    + ": its value is not UTF-8; send non-ASCII characters as JSON \\u escapes", e);
        }
    }

    public byte[] body() {
        return body;
    }

    /** The address the connection comes from. */
    public InetAddress client() {
        return client;
    }

    private static List<String> segments(String rawPath) {
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.split("/")) {
            if (!raw.isEmpty()) {
                segments.add(percentDecode(raw));
            }
        }
        return List.copyOf(segments);
    }

    /**
     * Decodes a path segment: {@code %XX} escapes and raw bytes (Netty reads the request line one character per
     * byte) of strict UTF-8; a {@code +} is a plus (only in a query does it mean a space).
     */
    private static String percentDecode(String raw) {
        if (raw.chars().allMatch(c -> c != '%' && c < 0x80)) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int index = 0; index < raw.length(); index++) {
            char c = raw.charAt(index);
            if (c != '%') {
                bytes.write(c);
                continue;
            }
            int high = index + 1 < raw.length() ? Character.digit(raw.charAt(index + 1), 16) : -1;
            int low = index + 2 < raw.length() ? Character.digit(raw.charAt(index + 2), 16) : -1;
            if (high < 0 || low < 0) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid path segment '" + raw
                        + "': '%' must be followed by two hexadecimal digits");
            }
            bytes.write(high * 16 + low);
            index += 2;
        }
        try {
            return strictUtf8(bytes.toByteArray());
        } catch (CharacterCodingException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid path segment '" + raw
                    + "': its percent-encoded bytes are not UTF-8", e);
        }
    }

    /** The bytes as UTF-8; an invalid or overlong sequence is an error, never a replacement character. */
    private static String strictUtf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new TreeMap<>();
        if (raw == null || raw.isEmpty()) {
            return Map.of();
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            try {
                String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
                String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
                query.put(key, value);
            } catch (IllegalArgumentException e) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid query parameter '" + pair
                        + "': " + e.getMessage(), e);
            }
        }
        return Map.copyOf(query);
    }
}
