package io.docmirror.store.server;

import io.docmirror.store.StoreException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Hands each complete request of one connection to the store's threads and writes the answer back, one request at a
 * time and in order. The event loop never blocks: the store work (RocksDB reads and synced writes) runs on the
 * {@code storeWork} executor, and the connection reads nothing more until the answer is written (which also keeps
 * a client from queueing work faster than it is done). Requests that arrived together (HTTP pipelining) wait here,
 * a few at most.
 */
final class RequestDispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);
    /** Pipelined requests a connection may have waiting; a client sending more loses its connection. */
    private static final int MAX_WAITING = 16;

    private final StoreApi api;
    private final StoreThreads storeWork;
    private final RequestGate gate;
    private final ConnectionTimeouts timeouts;
    private final RequestObserver observer;
    private final Deque<Received> waiting = new ArrayDeque<>();
    private boolean serving;

    RequestDispatcher(StoreApi api, StoreThreads storeWork, RequestGate gate, ConnectionTimeouts timeouts,
            RequestObserver observer) {
        this.api = requireNonNull(api, "api is null");
        this.storeWork = requireNonNull(storeWork, "storeWork is null");
        this.gate = requireNonNull(gate, "gate is null");
        this.timeouts = requireNonNull(timeouts, "timeouts is null");
        this.observer = requireNonNull(observer, "observer is null");
    }

    /** A request as it arrived: what the API needs, how to answer it, and when it arrived in full. */
    private record Received(ApiRequest request, boolean head, boolean keepAlive, long arrivedNanos) {
    }

    /** An answer with the route that gave it, for the observer. */
    private record Answer(ApiResponse response, String route) {
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        long arrivedNanos = System.nanoTime();
        timeouts.requestReceived();
        OpenConnections.requestReceived(ctx.channel());
        ctx.channel().config().setAutoRead(false);
        DecoderResult decoded = request.decoderResult();
        if (decoded.isFailure()) {
            // The decoder has stopped reading this connection: answer and close.
            answerAndClose(ctx, malformed(decoded.cause()), "OTHER", arrivedNanos);
            return;
        }
        boolean head = request.method().equals(HttpMethod.HEAD);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        ApiRequest apiRequest;
        try {
            apiRequest = ApiRequest.from(request, clientAddress(ctx), () -> !ctx.channel().isActive());
        } catch (StoreException e) {
            answerAndClose(ctx, ApiResponse.error(e.httpStatus(), e.code().name(), e.getMessage()),
                    methodLabel(request.method().name()), arrivedNanos);
            return;
        }
        Received received = new Received(apiRequest, head, keepAlive, arrivedNanos);
        if (!serving) {
            serve(ctx, received);
        }
        else if (waiting.size() < MAX_WAITING) {
            waiting.add(received);
        }
        else {
            log.debug("Closing the connection of {}: over {} pipelined requests", ctx.channel().remoteAddress(),
                    MAX_WAITING);
            ctx.close();
        }
    }

    private void serve(ChannelHandlerContext ctx, Received received) {
        serving = true;
        if (!gate.enter()) {
            answerAndClose(ctx, ApiResponse.error(503, "UNAVAILABLE", "The store's HTTP API is shutting down"),
                    methodLabel(received.request().method()), received.arrivedNanos());
            return;
        }
        boolean taken;
        try {
            taken = storeWork.execute(received.request(), () -> {
                Answer response = null;
                try {
                    response = new Answer(api.serve(received.request()), api.routeOf(received.request()));
                } finally {
                    // StoreApi answers every exception; only an Error leaves no answer, and then the connection goes.
                    Answer answer = response;
                    Runnable send = () -> {
                        if (answer == null) {
                            gate.exit();
                            ctx.close();
                        }
                        else {
                            write(ctx, received, answer);
                        }
                    };
                    if (answer == null || answer.response().delay().isZero()) {
                        ctx.executor().execute(send);
                    }
                    else {
                        // A wrong key's answer, held back by the event loop's timer: no thread waits for it.
                        ctx.executor().schedule(send, answer.response().delay().toNanos(), TimeUnit.NANOSECONDS);
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            gate.exit();
            log.debug("Refusing a request: the store's threads are shut down", e);
            answerAndClose(ctx, ApiResponse.error(503, "UNAVAILABLE", "The store's HTTP API is shutting down"),
                    methodLabel(received.request().method()), received.arrivedNanos());
            return;
        }
        if (!taken) {
            // Too many queries already run or wait: the Cosmos DB SDKs retry a 429 after Retry-After.
            ApiResponse busy = ApiResponse.error(429, "TOO_MANY_REQUESTS", "Too many queries are running or waiting ("
                    + StoreThreads.QUERIES_WAITING + " wait at most); retry in a second").withHeader("Retry-After", "1");
            write(ctx, received, new Answer(api.inShape(received.request(), busy), api.routeOf(received.request())));
        }
    }

    private void write(ChannelHandlerContext ctx, Received received, Answer answer) {
        timeouts.responseStarted();
        ctx.writeAndFlush(answer.response().toNetty(received.head(), received.keepAlive())).addListener(future -> {
            gate.exit();
            observer.answered(methodLabel(received.request().method()), answer.route(), answer.response().status(),
                    System.nanoTime() - received.arrivedNanos());
            if (!future.isSuccess()) {
                log.debug("Cannot send an answer to {}", ctx.channel().remoteAddress(), future.cause());
                ctx.close();
                return;
            }
            timeouts.responseSent();
            if (!received.keepAlive()) {
                ctx.close();
                return;
            }
            Received next = waiting.poll();
            if (next != null) {
                serve(ctx, next);
                return;
            }
            serving = false;
            timeouts.awaitNextRequest();
            ctx.channel().config().setAutoRead(true);
        });
    }

    private void answerAndClose(ChannelHandlerContext ctx, ApiResponse response, String method, long arrivedNanos) {
        timeouts.responseStarted();
        waiting.clear();
        ctx.writeAndFlush(response.toNetty(false, false)).addListener(future -> {
            observer.answered(method, Router.NO_ROUTE, response.status(), System.nanoTime() - arrivedNanos);
            ctx.close();
        });
    }

    /** The method as a metrics label: one the API knows, or OTHER (clients may send any token). */
    private static String methodLabel(String method) {
        return Router.METHOD_ORDER.contains(method) ? method : "OTHER";
    }

    private static ApiResponse malformed(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return ApiResponse.error(414, "URI_TOO_LONG", "The request line is over the limit of "
                    + StoreChannelInitializer.MAX_REQUEST_LINE_BYTES + " bytes");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return ApiResponse.error(431, "HEADERS_TOO_LARGE", "The request headers are over the limit of "
                    + StoreChannelInitializer.MAX_HEADER_BYTES + " bytes");
        }
        String reason = cause instanceof TooLongFrameException || cause.getMessage() == null
                ? cause.getClass().getSimpleName() : cause.getMessage();
        return ApiResponse.error(400, "BAD_REQUEST", "Malformed HTTP request: " + reason);
    }

    private static InetAddress clientAddress(ChannelHandlerContext ctx) {
        return ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("Connection of {} failed", ctx.channel().remoteAddress(), cause);
        }
        else {
            log.warn("Connection of {} failed; closing it", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
