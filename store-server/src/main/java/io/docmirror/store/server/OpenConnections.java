package io.docmirror.store.server;

import io.docmirror.store.StoreConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The server's open connections: at most {@code maxConnections}, and at most a quarter of them from one client address,
 * and all of them at hand to close when the server stops. One instance is shared by every connection's pipeline.
 *
 * <p>When a new connection finds the pool (or its address's share) full, the oldest connection that has not sent a
 * complete request yet (of the whole pool, or of that address) is closed to make room; only when every one has, is
 * the newcomer closed. So a client that holds idle sockets open, re-opening them as they time out, can neither fill
 * the pool nor keep others out: it pushes out its own idle sockets first, and other addresses keep their share.
 */
@ChannelHandler.Sharable
final class OpenConnections extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(OpenConnections.class);
    /** Set on a connection once it has sent a whole request ({@link #requestReceived}). */
    private static final AttributeKey<Boolean> SENT_A_REQUEST = AttributeKey.valueOf("docmirror-sent-a-request");

    private final int maxConnections;
    private final int maxPerAddress;
    /** Open connections, oldest first; guarded by {@code this}. */
    private final Set<Channel> open = new LinkedHashSet<>();
    /** Open connections per client address; guarded by {@code this}. */
    private final Map<InetAddress, Integer> perAddress = new HashMap<>();
    private final ChannelGroup accepted = new DefaultChannelGroup("docmirror-store-http", GlobalEventExecutor.INSTANCE);

    OpenConnections(int maxConnections) {
        this.maxConnections = maxConnections;
        this.maxPerAddress = Math.max(1, maxConnections / 4);
    }

    /** Notes that {@code channel} has sent a whole request: it is no longer the first to close when room is needed. */
    static void requestReceived(Channel channel) {
        channel.attr(SENT_A_REQUEST).set(Boolean.TRUE);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (!admit(channel)) {
            log.debug("Refusing a connection from {}: {} connections are open ({}), or {} from its address, and "
                    + "each has sent a request", channel.remoteAddress(), maxConnections,
                    StoreConfig.HTTP_MAX_CONNECTIONS.key(), maxPerAddress);
            ctx.close();
            return;
        }
        accepted.add(channel);
        ctx.fireChannelActive();
    }

    /**
     * Takes {@code channel} in, closing the connection that makes room for it when the pool or its address's share is
     * full; false when there is none to close, and so no room.
     */
    private synchronized boolean admit(Channel channel) {
        InetAddress address = addressOf(channel);
        boolean addressFull = perAddress.getOrDefault(address, 0) >= maxPerAddress;
        if (addressFull || open.size() >= maxConnections) {
            Optional<Channel> idle = oldestWithoutARequest(addressFull ? address : null);
            if (idle.isEmpty()) {
                return false;
            }
            log.debug("Closing the connection of {}, which has sent no request, to make room for {}",
                    idle.get().remoteAddress(), channel.remoteAddress());
            forget(idle.get());
            idle.get().close();
        }
        open.add(channel);
        perAddress.merge(address, 1, Integer::sum);
        return true;
    }

    /** The oldest open connection that has sent no whole request, of {@code address} (null: of any address). */
    private Optional<Channel> oldestWithoutARequest(InetAddress address) {
        for (Iterator<Channel> channels = open.iterator(); channels.hasNext(); ) {
            Channel channel = channels.next();
            if (channel.attr(SENT_A_REQUEST).get() == null && (address == null || address.equals(addressOf(channel)))) {
                return Optional.of(channel);
            }
        }
        return Optional.empty();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        forget(ctx.channel());
        ctx.fireChannelInactive();
    }

    /** Counts {@code channel} out; a channel counted out already (closed to make room) is left alone. */
    private synchronized void forget(Channel channel) {
        if (open.remove(channel)) {
            perAddress.computeIfPresent(addressOf(channel), (address, count) -> count == 1 ? null : count - 1);
        }
    }

    private static InetAddress addressOf(Channel channel) {
        return ((InetSocketAddress) channel.remoteAddress()).getAddress();
    }

    ChannelGroupFuture closeAll() {
        return accepted.close();
    }
}
