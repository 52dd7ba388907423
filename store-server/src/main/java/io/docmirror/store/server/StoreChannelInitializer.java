package io.docmirror.store.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.ssl.SslContext;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Sets up each connection: the connection limit, the time limits, TLS when the server has a certificate, the HTTP/1.1
 * codec with bounded request line and headers, the body gathered up to its limit, and the dispatcher to the store's
 * threads.
 */
final class StoreChannelInitializer extends ChannelInitializer<SocketChannel> {
    /** The store's limit on a request body (a bulk write's NDJSON is the largest). */
    static final int MAX_BODY_BYTES = 64 * 1024 * 1024;
    /** Room for a container name and an item id of 1023 bytes, each percent-encoded, with a query. */
    static final int MAX_REQUEST_LINE_BYTES = 16 * 1024;
    /** Room for a partition key of 2 KB written with escapes, a key and the usual headers. */
    static final int MAX_HEADER_BYTES = 32 * 1024;

    private final OpenConnections connections;
    private final StoreApi api;
    private final StoreThreads storeWork;
    private final RequestGate gate;
    private final Duration requestTimeout;
    private final Duration idleTimeout;
    private final RequestObserver observer;
    private final Optional<SslContext> tls;

    /** @param tls the server's TLS context: each connection then speaks TLS first; empty for plain HTTP */
    StoreChannelInitializer(OpenConnections connections, StoreApi api, StoreThreads storeWork, RequestGate gate,
            Duration requestTimeout, Duration idleTimeout, RequestObserver observer, Optional<SslContext> tls) {
        this.connections = requireNonNull(connections, "connections is null");
        this.api = requireNonNull(api, "api is null");
        this.storeWork = requireNonNull(storeWork, "storeWork is null");
        this.gate = requireNonNull(gate, "gate is null");
        this.requestTimeout = requireNonNull(requestTimeout, "requestTimeout is null");
        this.idleTimeout = requireNonNull(idleTimeout, "idleTimeout is null");
        this.observer = requireNonNull(observer, "observer is null");
        this.tls = requireNonNull(tls, "tls is null");
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ConnectionTimeouts timeouts = new ConnectionTimeouts(requestTimeout, idleTimeout);
        channel.pipeline()
                .addLast("connections", connections)
                .addLast("timeouts", timeouts);
        tls.ifPresent(context -> channel.pipeline().addLast("tls", context.newHandler(channel.alloc())));
        channel.pipeline()
                .addLast("http-decoder", new StrictRequestDecoder(new HttpDecoderConfig()
                        .setMaxInitialLineLength(MAX_REQUEST_LINE_BYTES)
                        .setMaxHeaderSize(MAX_HEADER_BYTES)))
                // A HEAD's answer is built without a body (ApiResponse.toNetty): the plain encoder suffices.
                .addLast("http-encoder", new HttpResponseEncoder())
                .addLast("body", new BoundedRequestAggregator(MAX_BODY_BYTES))
                .addLast("dispatcher", new RequestDispatcher(api, storeWork, gate, timeouts, observer));
    }
}
