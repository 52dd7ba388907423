package io.docmirror.store.http;

import io.docmirror.store.StoreConfig;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's open connections: at most {@code maxConnections} (a connection beyond them is closed as soon as it is
 * accepted, before it is read), and all of them at hand to close when the server stops. One instance is shared by
 * every connection's pipeline.
 */
@ChannelHandler.Sharable
final class OpenConnections extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(OpenConnections.class);

    private final int maxConnections;
    /** Counts every active connection, refused ones until they are closed; so a burst never overshoots. */
    private final AtomicInteger active = new AtomicInteger();
    private final ChannelGroup accepted = new DefaultChannelGroup("docmirror-store-http", GlobalEventExecutor.INSTANCE);

    OpenConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (active.incrementAndGet() > maxConnections) {
            log.debug("Refusing a connection from {}: {} connections are open ({})", ctx.channel().remoteAddress(),
                    maxConnections, StoreConfig.HTTP_MAX_CONNECTIONS.key());
            ctx.close();
            return;
        }
        accepted.add(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        active.decrementAndGet();
        ctx.fireChannelInactive();
    }

    ChannelGroupFuture closeAll() {
        return accepted.close();
    }
}
