package io.docmirror.store.server;

import io.docmirror.store.StoreConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The time limits of one connection, so that a client that sends slowly or not at all costs a connection slot for
 * a bounded time only (and never a thread, which it never holds):
 * <ul>
 *   <li>a request must arrive in full within the request timeout, counted from the connection's opening or, on a
 *       kept-alive connection, from the request's first byte; if not, it is answered 408 and the connection
 *       closed (a request sent one byte at a time does not keep it open);</li>
 *   <li>its answer must be sent within the request timeout as well (a client that does not read is dropped);</li>
 *   <li>a kept-alive connection is closed when no next request starts within the idle timeout.</li>
 * </ul>
 * The handling of a request in between has no limit here. It sits before the HTTP decoder, where it sees the
 * request's first byte; the {@link RequestDispatcher} tells it when a request is complete and when its answer is
 * sent. Every call happens on the connection's event loop.
 */
final class ConnectionTimeouts extends ChannelInboundHandlerAdapter {
    private enum Phase { RECEIVING, SERVING, IDLE }

    private final long requestTimeoutNanos;
    private final long idleTimeoutNanos;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.RECEIVING;
    private ScheduledFuture<?> timer;

    ConnectionTimeouts(Duration requestTimeout, Duration idleTimeout) {
        this.requestTimeoutNanos = requestTimeout.toNanos();
        this.idleTimeoutNanos = idleTimeout.toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        schedule(requestTimeoutNanos, this::requestTimedOut);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase == Phase.IDLE) {
            phase = Phase.RECEIVING;
            schedule(requestTimeoutNanos, this::requestTimedOut);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    /** A request has arrived in full (one that came along with an earlier one changes nothing). */
    void requestReceived() {
        if (phase == Phase.RECEIVING) {
            cancel();
        }
        phase = Phase.SERVING;
    }

    /** An answer is being written. */
    void responseStarted() {
        schedule(requestTimeoutNanos, ctx::close);
    }

    /** The answer is written. */
    void responseSent() {
        cancel();
    }

    /** The connection waits for the next request. */
    void awaitNextRequest() {
        phase = Phase.IDLE;
        schedule(idleTimeoutNanos, ctx::close);
    }

    private void requestTimedOut() {
        ApiResponse timeout = ApiResponse.error(408, "REQUEST_TIMEOUT", "The request did not arrive in full within "
                + TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos) + " ms ("
                + StoreConfig.HTTP_REQUEST_TIMEOUT_MS.key() + "); the connection is closed");
        // Written from the pipeline's tail, so that it passes the HTTP encoder.
        ctx.channel().writeAndFlush(timeout.toNetty(false, false)).addListener(ChannelFutureListener.CLOSE);
    }

    private void schedule(long delayNanos, Runnable action) {
        cancel();
        timer = ctx.executor().schedule(action, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
