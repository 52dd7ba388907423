package io.docmirror.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * HTTP/1.1 spoken byte for byte over a plain socket, for what a well-behaved client cannot send or would hide: header
 * bytes beyond ASCII, half-sent requests, any method, and the exact bytes of a response's head. Each request asks
 * for {@code Connection: close}, and its response is read until the server closes.
 */
final class RawHttp {
    private static final int READ_TIMEOUT_MS = 30_000;

    private final String method;
    private final String target;
    private final List<byte[]> headerLines = new ArrayList<>();
    private byte[] body = new byte[0];

    private RawHttp(String method, String target) {
        this.method = method;
        this.target = target;
    }

    /** @param target the path and query as sent, e.g. {@code /containers/orders/items?x=1} */
    static RawHttp request(String method, String target) {
        return new RawHttp(method, target);
    }

    RawHttp header(String name, String value) {
        return header(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /** A header whose value is these bytes, whatever they are. */
    RawHttp header(String name, byte[] value) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        line.writeBytes((name + ": ").getBytes(StandardCharsets.US_ASCII));
        line.writeBytes(value);
        headerLines.add(line.toByteArray());
        return this;
    }

    RawHttp body(byte[] content) {
        this.body = content.clone();
        return this;
    }

    RawHttp body(String content) {
        return body(content.getBytes(StandardCharsets.UTF_8));
    }

    /** The whole request: request line, Host, Connection: close, the headers, Content-Length and the body. */
    byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        for (byte[] line : headerLines) {
            out.writeBytes(line);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
        out.writeBytes(("Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(body);
        return out.toByteArray();
    }

    Response send(int port) throws IOException {
        return sendFrom(InetAddress.getLoopbackAddress(), port);
    }

    /** Sends to a server listening on another address than 127.0.0.1. */
    Response sendTo(String host, int port) throws IOException {
        return exchange(new Socket(InetAddress.getByName(host), port));
    }

    /** Sends from another local address (any of 127.0.0.0/8 on Linux), as another client would. */
    Response sendFrom(InetAddress source, int port) throws IOException {
        return exchange(new Socket(InetAddress.getLoopbackAddress(), port, source, 0));
    }

    private Response exchange(Socket connected) throws IOException {
        try (Socket socket = connected) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write(bytes());
            out.flush();
            return Response.parse(socket.getInputStream().readAllBytes());
        }
    }

    /** Reads what a server sends on {@code in} until it closes, as a response. */
    static Response readResponse(InputStream in) throws IOException {
        return Response.parse(in.readAllBytes());
    }

    /** A response as the bytes came. */
    record Response(int status, byte[] head, List<String[]> headers, byte[] body) {
        static Response parse(byte[] bytes) {
            int end = indexOf(bytes, new byte[] {'\r', '\n', '\r', '\n'});
            if (end < 0) {
                throw new IllegalStateException("Not an HTTP response (no end of head): "
                        + new String(bytes, StandardCharsets.ISO_8859_1));
            }
            byte[] head = Arrays.copyOfRange(bytes, 0, end + 2);
            byte[] body = Arrays.copyOfRange(bytes, end + 4, bytes.length);
            String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            List<String[]> headers = new ArrayList<>();
            for (int index = 1; index < lines.length; index++) {
                int colon = lines[index].indexOf(':');
                headers.add(new String[] {lines[index].substring(0, colon).trim(),
                        lines[index].substring(colon + 1).trim()});
            }
            return new Response(status, head, headers, body);
        }

        Optional<String> header(String name) {
            return headers.stream().filter(header -> header[0].toLowerCase(Locale.ROOT)
                    .equals(name.toLowerCase(Locale.ROOT))).map(header -> header[1]).findFirst();
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The head and the body, for failure messages. */
        @Override
        public String toString() {
            return new String(head, StandardCharsets.ISO_8859_1) + "\r\n" + bodyText();
        }

        private static int indexOf(byte[] bytes, byte[] part) {
            outer:
            for (int index = 0; index + part.length <= bytes.length; index++) {
                for (int offset = 0; offset < part.length; offset++) {
                    if (bytes[index + offset] != part[offset]) {
                        continue outer;
                    }
                }
                return index;
            }
            return -1;
        }
    }
}
