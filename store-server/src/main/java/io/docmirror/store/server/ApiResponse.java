package io.docmirror.store.server;

import io.docmirror.store.http.WireFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * One HTTP answer of the API: a status, headers and a body ({@code null} for none, as a 204 has), which the
 * handlers build without knowing Netty and the connection sends as Netty's response ({@link #toNetty}). Header
 * values are printable ASCII, checked here: a value with a line break or a byte beyond ASCII could end the header
 * early (response splitting) or reach the client as other characters.
 */
public final class ApiResponse {
    public static final String JSON = "application/json; charset=utf-8";

    private final int status;
    private final Map<String, String> headers;
    private final byte[] body;
    /** What an error answer says, so that a protocol can say it in its own shape; null otherwise. */
    private final Error error;
    /** How long the connection holds the answer before sending it (a wrong key's, to slow guessing down). */
    private final Duration delay;

    /** What an error answer says: the docmirror API's code (such as {@code NOT_FOUND}) and its message. */
    private record Error(String code, String message) {
    }

    /** How a protocol writes an error's body. */
    @FunctionalInterface
    public interface ErrorShape {
        /** docmirror's own: {@code {"code":"CONFLICT","status":409,"message":"..."}}. */
        ErrorShape DOCMIRROR = WireFormat::error;

        byte[] body(int status, String code, String message);
    }

    private ApiResponse(int status, Map<String, String> headers, byte[] body, Error error, Duration delay) {
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.error = error;
        this.delay = delay;
    }

    public static ApiResponse json(int status, byte[] body) {
        return new ApiResponse(status, new LinkedHashMap<>(), requireNonNull(body, "body is null"), null,
                Duration.ZERO).withHeader("Content-Type", JSON);
    }

    public static ApiResponse empty(int status) {
        return new ApiResponse(status, new LinkedHashMap<>(), null, null, Duration.ZERO);
    }

    /**
     * An error in docmirror's shape ({@code {"code":"CONFLICT","status":409,"message":"..."}}), which the server's own
     * answers (a malformed request, a shutdown) have; a protocol may give it its own shape ({@link #inShape}).
     */
    public static ApiResponse error(int status, String code, String message) {
        return error(status, code, message, ErrorShape.DOCMIRROR);
    }

    public static ApiResponse error(int status, String code, String message, ErrorShape shape) {
        return new ApiResponse(status, new LinkedHashMap<>(), shape.body(status, code, message),
                new Error(code, message), Duration.ZERO).withHeader("Content-Type", JSON);
    }

    /** This error answer in another shape, with the same headers; any other answer as it is. */
    public ApiResponse inShape(ErrorShape shape) {
        if (error == null) {
            return this;
        }
        return new ApiResponse(status, headers, shape.body(status, error.code(), error.message()), error, delay);
    }

    /** This answer, sent {@code delay} after it is ready; no thread waits meanwhile, the connection's timer does. */
    public ApiResponse delayedBy(Duration delay) {
        return new ApiResponse(status, headers, body, error, requireNonNull(delay, "delay is null"));
    }

    public Duration delay() {
        return delay;
    }

    /**
     * This answer with one more header.
     *
     * @throws IllegalArgumentException when the value is not printable ASCII
     */
    public ApiResponse withHeader(String name, String value) {
        for (int index = 0; index < value.length(); index++) {
            char c = value.charAt(index);
            if (c < 0x20 || c >= 0x7F) {
                throw new IllegalArgumentException("Header " + name + " cannot carry character U+"
                        + String.format("%04X", (int) c) + ": header values are printable ASCII");
            }
        }
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new ApiResponse(status, more, body, error, delay);
    }

    public int status() {
        return status;
    }

    public Map<String, String> headers() {
        return Collections.unmodifiableMap(headers);
    }

    /** The body, or {@code null} for none. */
    public byte[] body() {
        return body;
    }

    /**
     * @param head the answer to a HEAD request: its Content-Length is the body's, and the body is left out
     * @param keepAlive whether the connection stays open for another request
     */
    FullHttpResponse toNetty(boolean head, boolean keepAlive) {
        ByteBuf content = body == null || head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse netty = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                content);
        headers.forEach((name, value) -> netty.headers().set(name, value));
        if (body != null) {
            netty.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        }
        else if (status != 204) {
            // A 204 carries no Content-Length (RFC 9110, 8.6); any other answer without a body says 0.
            netty.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        }
        netty.headers().set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        return netty;
    }
}
