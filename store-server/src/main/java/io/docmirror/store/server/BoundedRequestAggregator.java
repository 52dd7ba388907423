package io.docmirror.store.server;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;

/**
 * Gathers a request's body up to {@code maxBodyBytes}; a larger one (by its Content-Length, or as it arrives) is
 * answered with the API's JSON 413 and its connection closed, so the rest is never read.
 */
final class BoundedRequestAggregator extends HttpObjectAggregator {
    private final int maxBodyBytes;

    BoundedRequestAggregator(int maxBodyBytes) {
        super(maxBodyBytes);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        ApiResponse tooLarge = ApiResponse.error(413, "TOO_LARGE",
                "Request body is over the limit of " + maxBodyBytes + " bytes");
        ctx.writeAndFlush(tooLarge.toNetty(false, false)).addListener(ChannelFutureListener.CLOSE);
    }
}
