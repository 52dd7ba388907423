package io.docmirror.store.server;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;

/**
 * Netty's HTTP/1.1 request decoder, but a request that carries both {@code Transfer-Encoding} and
 * {@code Content-Length} is refused instead of read by its chunks. The two headers give two ends of the body: a proxy in
 * front that believes the other one sees another request where this server sees a body (request smuggling). RFC 9112
 * (6.1) lets a server refuse such a request, and then close the connection, whose remaining bytes have no trustworthy
 * boundary; the dispatcher answers 400 and closes it, as for any request the decoder could not read.
 */
final class StrictRequestDecoder extends HttpRequestDecoder {
    StrictRequestDecoder(HttpDecoderConfig config) {
        super(config);
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        message.setDecoderResult(DecoderResult.failure(new IllegalArgumentException("a request carries both "
                + "Transfer-Encoding and Content-Length, which HTTP forbids (RFC 9112, 6.1); send one of them")));
    }
}
