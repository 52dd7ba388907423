package io.docmirror.store.server;

import io.docmirror.store.server.cosmos.CosmosAuthorization;
import io.docmirror.store.server.cosmos.CosmosEndpoints;
import io.docmirror.store.server.cosmos.CosmosProtocol;
import io.docmirror.store.server.docmirror.Authenticator;
import io.docmirror.store.server.docmirror.ContainerRoute;
import io.docmirror.store.server.docmirror.DocmirrorProtocol;
import io.docmirror.store.server.docmirror.HeldSnapshots;
import io.docmirror.store.server.docmirror.StoreEndpoints;

import io.docmirror.store.SnapshotSource;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * The store's HTTP API (docs/http-api.md) over any {@link StoreClient}. JSON in and out; errors are
 * {@code {"code":..., "status":..., "message":...}} with the status Cosmos DB would give.
 *
 * <p>It runs on Netty: Netty is already on the classpath (Arrow Flight brings it), it is non-blocking, so a slow
 * or silent client costs a connection slot for a bounded time and never a thread, and it is the field's standard
 * for fast servers. A few event loops (one per core) read and write every connection; the store work of each
 * request, which blocks on RocksDB, runs on a separate pool of {@code store.http.threads} threads. Connections are
 * bounded in number, in time ({@code store.http.request-timeout-ms}, {@code idle-timeout-ms}) and in size (request
 * line, headers, a 64 MB body).
 *
 * <p>Without keys it listens only on 127.0.0.1 or ::1 (see docs/http-api.md for why not all of 127.0.0.0/8); any
 * other address requires a primary key, which clients send as {@code Authorization: Bearer <key>}. A read-only key
 * allows GET and HEAD only (and queries on the Cosmos DB routes). Repeated wrong keys from an address are answered
 * late, never locked out. Keys are never logged.
 *
 * <p>When the store offers snapshots ({@link SnapshotSource}, as the embedded store does), the server holds them for
 * its clients under leases ({@link HeldSnapshots}): at most {@code store.http.max-snapshots}, each released when not
 * read for its lease, and all of them when the server closes.
 *
 * <p>The same server speaks Cosmos DB's gateway protocol at {@code /} and below {@code /dbs} ({@link CosmosEndpoints}),
 * signed with the same keys as Cosmos DB signs requests; each protocol ({@link Protocol}) checks its own keys and
 * answers errors in its own shape; with {@code store.http.tls-keystore} it speaks TLS only, as
 * the Cosmos DB SDKs require.
 */
public final class StoreHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StoreHttpServer.class);
    /** How long {@link #close()} waits for the requests in flight to be answered. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

    private final Channel listener;
    private final EventLoopGroup acceptLoop;
    private final EventLoopGroup ioLoops;
    private final StoreThreads storeWork;
    private final OpenConnections connections;
    private final RequestGate gate;
    private final Optional<HeldSnapshots> snapshots;
    private final boolean tls;
    private final AtomicBoolean closed = new AtomicBoolean();

    private StoreHttpServer(Channel listener, EventLoopGroup acceptLoop, EventLoopGroup ioLoops,
            StoreThreads storeWork, OpenConnections connections, RequestGate gate, Optional<HeldSnapshots> snapshots,
            boolean tls) {
        this.listener = listener;
        this.acceptLoop = acceptLoop;
        this.ioLoops = ioLoops;
        this.storeWork = storeWork;
        this.connections = connections;
        this.gate = gate;
        this.snapshots = snapshots;
        this.tls = tls;
    }

    /**
     * Starts serving {@code store} on the configured address and port (port 0 picks a free one).
     *
     * @throws IllegalArgumentException when the address is not 127.0.0.1 or ::1 and no primary key is configured or
     *         the emulator's key is accepted
     * @throws IOException when the address cannot be listened on
     */
    public static StoreHttpServer start(StoreClient store, StoreConfig config) throws IOException {
        return start(store, config, RequestObserver.NONE);
    }

    /**
     * Starts serving {@code store}, telling {@code observer} of every answered request (for metrics).
     *
     * @throws IllegalArgumentException when the address is not 127.0.0.1 or ::1 and no primary key is configured or
     *         the emulator's key is accepted
     * @throws IOException when the address cannot be listened on
     */
    public static StoreHttpServer start(StoreClient store, StoreConfig config, RequestObserver observer)
            throws IOException {
        return start(store, config, Map.of(), observer);
    }

    /**
     * Starts serving {@code store} and, below {@code /containers/{c}/<name>}, the given extra routes.
     *
     * @throws IllegalArgumentException when the address is not 127.0.0.1 or ::1 and no primary key is configured or
     *         the emulator's key is accepted, or a route's name is not a lower-case word or is one of the store's own
     * @throws IOException when the address cannot be listened on
     */
    public static StoreHttpServer start(StoreClient store, StoreConfig config, Map<String, ContainerRoute> containerRoutes)
            throws IOException {
        return start(store, config, containerRoutes, RequestObserver.NONE);
    }

    /**
     * Starts serving {@code store} and the extra routes, telling {@code observer} of every answered request (for
     * metrics).
     *
     * @throws IllegalArgumentException when the address is not 127.0.0.1 or ::1 and no primary key is configured or
     *         the emulator's key is accepted, or a route's name is not a lower-case word or is one of the store's own
     * @throws IOException when the address cannot be listened on
     */
    public static StoreHttpServer start(StoreClient store, StoreConfig config,
            Map<String, ContainerRoute> containerRoutes, RequestObserver observer) throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(observer, "observer is null");
        InetAddress address = InetAddress.getByName(config.httpBind());
        if (!isLocalOnly(address) && config.primaryKey().isEmpty()) {
            throw StoreConfig.HTTP_BIND.invalid(config.httpBind(), "listening on an address other than 127.0.0.1 or "
                    + "::1 (other loopback addresses included) requires " + StoreConfig.HTTP_PRIMARY_KEY.key());
        }
        if (!isLocalOnly(address) && config.acceptEmulatorKey()) {
            throw StoreConfig.HTTP_ACCEPT_EMULATOR_KEY.invalid("true", "the Cosmos DB emulator's key is published, so "
                    + "it would give anyone who reaches " + config.httpBind() + " read-write access; accept it only "
                    + "when " + StoreConfig.HTTP_BIND.key() + " is 127.0.0.1 or ::1");
        }
        Optional<SslContext> tls = config.tlsKeystore().isPresent()
                ? Optional.of(ServerCertificate.load(Path.of(config.tlsKeystore().get()), config.tlsKeystorePassword()))
                : Optional.empty();
        // One throttle for both protocols: a guesser gains nothing by alternating between them.
        LoginThrottle throttle = new LoginThrottle(config.httpLoginFailures(), config.httpLoginFailureDelay(),
                System::nanoTime);
        // Snapshots are held for clients when the store offers them (an embedded store does).
        Optional<HeldSnapshots> snapshots = store instanceof SnapshotSource source
                ? Optional.of(new HeldSnapshots(source, config.httpMaxSnapshots(), config.httpSnapshotMaxLease(),
                        Clock.systemUTC()))
                : Optional.empty();
        StoreApi api = new StoreApi(List.of(
                new CosmosProtocol(new CosmosAuthorization(config.primaryKey(), config.readOnlyKey(),
                        config.acceptEmulatorKey(), Clock.systemUTC()), throttle,
                        new CosmosEndpoints(store, config, tls.isPresent())),
                new DocmirrorProtocol(new Authenticator(config.primaryKey(), config.readOnlyKey()), throttle,
                        new StoreEndpoints(store, config, containerRoutes, snapshots))));

        StoreThreads storeWork = new StoreThreads(config.httpThreads(), api::isQuery);
        EventLoopGroup acceptLoop = new NioEventLoopGroup(1,
                new DefaultThreadFactory("docmirror-store-http-accept", true));
        EventLoopGroup ioLoops = new NioEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory("docmirror-store-http-io", true));
        OpenConnections connections = new OpenConnections(config.httpMaxConnections());
        RequestGate gate = new RequestGate();
        ChannelFuture bound = new ServerBootstrap()
                .group(acceptLoop, ioLoops)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 256)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new StoreChannelInitializer(connections, api, storeWork, gate,
                        config.httpRequestTimeout(), config.httpIdleTimeout(), observer, tls))
                .bind(new InetSocketAddress(address, config.httpPort()))
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            snapshots.ifPresent(HeldSnapshots::close);
            storeWork.shutdownNow();
            acceptLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            ioLoops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new IOException("Cannot listen on " + config.httpBind() + ":" + config.httpPort() + ": "
                    + bound.cause().getMessage(), bound.cause());
        }
        StoreHttpServer server = new StoreHttpServer(bound.channel(), acceptLoop, ioLoops, storeWork, connections, gate,
                snapshots, tls.isPresent());
        log.info("Store HTTP API listening on {}/ ({})", server.baseUri(),
                config.primaryKey().isPresent() ? "keys required" : "no keys, 127.0.0.1 or ::1 only");
        return server;
    }

    /**
     * Whether only this machine can reach the address: 127.0.0.1 and ::1, the loopback addresses every system has
     * and routes nowhere else. Other addresses of 127.0.0.0/8 are not counted: they are set up by hand (aliases,
     * DNS stubs such as 127.0.0.53, the targets of port forwarding in containers and VPNs), usually so that
     * something else can reach them.
     */
    static boolean isLocalOnly(InetAddress address) {
        return address instanceof Inet6Address
                ? address.isLoopbackAddress()
                : Arrays.equals(address.getAddress(), new byte[] {127, 0, 0, 1});
    }

    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    public String baseUri() {
        InetSocketAddress address = (InetSocketAddress) listener.localAddress();
        String host = address.getAddress().getHostAddress();
        return (tls ? "https://" : "http://") + (address.getAddress() instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port();
    }

    /**
     * Stops accepting connections, answers the requests already taken (refusing new ones with 503), waits up to
     * 10 seconds for them, then closes every connection and frees the threads.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        listener.close().awaitUninterruptibly();
        try {
            int unfinished = gate.closeAndAwait(CLOSE_GRACE);
            if (unfinished > 0) {
                log.warn("Closing the store's HTTP API with {} requests unanswered after {} s", unfinished,
                        CLOSE_GRACE.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("Interrupted while waiting for the HTTP requests in flight; closing their connections", e);
        }
        connections.closeAll().awaitUninterruptibly();
        storeWork.shutdown(CLOSE_GRACE);
        // After the requests: none reads a snapshot any more.
        snapshots.ifPresent(HeldSnapshots::close);
        ioLoops.shutdownGracefully(0, CLOSE_GRACE.toSeconds(), TimeUnit.SECONDS).awaitUninterruptibly();
        acceptLoop.shutdownGracefully(0, CLOSE_GRACE.toSeconds(), TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
