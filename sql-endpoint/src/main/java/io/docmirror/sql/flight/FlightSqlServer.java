package io.docmirror.sql.flight;

import io.docmirror.sql.SqlEndpoint;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BasicCallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.GeneratedBearerTokenAuthenticator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The SQL endpoint on the network, speaking Arrow Flight SQL: any Flight SQL client (the Arrow project's JDBC
 * driver, ADBC, pyarrow) connects with the one user name and password of {@link FlightConfig}, over TLS when the
 * configuration has a certificate. A client logs in once with basic authentication and gets a bearer token for its
 * later calls.
 */
public final class FlightSqlServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FlightSqlServer.class);

    private final FlightServer server;
    private final DocmirrorFlightProducer producer;
    private final BufferAllocator allocator;
    private final ScheduledExecutorService housekeeping;
    private final FlightConfig config;
    private final String password;

    private FlightSqlServer(FlightServer server, DocmirrorFlightProducer producer, BufferAllocator allocator,
            ScheduledExecutorService housekeeping, FlightConfig config, String password) {
        this.server = server;
        this.producer = producer;
        this.allocator = allocator;
        this.housekeeping = housekeeping;
        this.config = config;
        this.password = password;
    }

    /**
     * Serves {@code endpoint} until {@link #close}; the endpoint stays the caller's to close, after this.
     *
     * @throws IllegalArgumentException when the address is not 127.0.0.1 or ::1 and there is neither TLS nor
     *         {@code flight.allow-plaintext}
     * @throws IOException when the address cannot be listened on
     * @throws SQLException when the endpoint cannot tell what DuckDB supports (its keywords and functions)
     */
    public static FlightSqlServer start(SqlEndpoint endpoint, FlightConfig config) throws IOException, SQLException {
        return start(endpoint, config, QueryObserver.NONE);
    }

    /**
     * Serves {@code endpoint} as {@link #start(SqlEndpoint, FlightConfig)} does, telling {@code observer} about each
     * query and the tickets waiting to be fetched.
     */
    public static FlightSqlServer start(SqlEndpoint endpoint, FlightConfig config, QueryObserver observer)
            throws IOException, SQLException {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(observer, "observer is null");
        if (!config.tls() && !config.allowPlaintext() && !isLocalOnly(InetAddress.getByName(config.bind()))) {
            throw FlightConfig.BIND.invalid(config.bind(), "listening on an address other than 127.0.0.1 or ::1 "
                    + "(other loopback addresses included) requires TLS (" + FlightConfig.TLS_CERTIFICATE.key()
                    + " and " + FlightConfig.TLS_PRIVATE_KEY.key() + "), or " + FlightConfig.ALLOW_PLAINTEXT.key()
                    + "=true to send passwords and results in the clear");
        }
        String password = config.password().orElseGet(FlightSqlServer::randomPassword);
        ServerSqlInfo sqlInfo = ServerSqlInfo.of(endpoint,
                Optional.ofNullable(FlightSqlServer.class.getPackage().getImplementationVersion()).orElse("dev"),
                Optional.ofNullable(Schema.class.getPackage().getImplementationVersion()).orElse("unknown"));
        IssuedTickets tickets = new IssuedTickets(config.ticketLifetime(), config.maxTicketsPerClient(),
                config.maxTickets(), System::nanoTime);
        // Everything the server holds in Arrow buffers (results on their way, parameters) is held to the endpoint's
        // memory limit, beside DuckDB's own: a result that would pass it fails, the server goes on.
        BufferAllocator allocator = new RootAllocator(endpoint.config().memoryLimitBytes());
        DocmirrorFlightProducer producer = new DocmirrorFlightProducer(endpoint, allocator, config.batchRows(),
                sqlInfo, tickets, new OpenStreams(config.maxStreamsPerClient(), config.maxStreams()),
                config.streamIdleTimeout(), observer);
        Location location = config.tls() ? Location.forGrpcTls(config.bind(), config.port())
                : Location.forGrpcInsecure(config.bind(), config.port());
        FlightServer.Builder builder = FlightServer.builder(allocator, location, producer)
                .headerAuthenticator(new GeneratedBearerTokenAuthenticator(
                        new BasicCallHeaderAuthenticator(credentials(config.username(), password,
                                new FailedLogins(System::nanoTime)))));
        if (config.tls()) {
            builder.useTls(config.tlsCertificate().orElseThrow().toFile(), config.tlsPrivateKey().orElseThrow().toFile());
        }
        FlightServer server = builder.build();
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            producer.close();
            allocator.close();
            throw new IOException("Cannot serve Flight SQL on " + config.bind() + ":" + config.port() + ": "
                    + e.getMessage(), e);
        }
        ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-flight-housekeeping");
            thread.setDaemon(true);
            return thread;
        });
        housekeeping.scheduleWithFixedDelay(producer::expireTickets, 1, 1, TimeUnit.MINUTES);
        log.info("Flight SQL endpoint listening on {}:{}{}", config.bind(), server.getPort(),
                config.tls() ? " (TLS)" : "");
        return new FlightSqlServer(server, producer, allocator, housekeeping, config, password);
    }

    public int port() {
        return server.getPort();
    }

    public String username() {
        return config.username();
    }

    /** The password clients log in with: the configured one, or the one made at start. */
    public String password() {
        return password;
    }

    /** The password made at start, when none was configured: the one a user must be told. */
    public Optional<String> generatedPassword() {
        return config.password().isPresent() ? Optional.empty() : Optional.of(password);
    }

    /** The results being streamed to clients now. */
    public int openStreams() {
        return producer.openStreams();
    }

    /** The URL for the Arrow Flight SQL JDBC driver, without the credentials (give them as user and password). */
    public String jdbcUrl() {
        String host = config.bind().equals("0.0.0.0") ? "localhost" : config.bind();
        return "jdbc:arrow-flight-sql://" + host + ":" + port() + "/?useEncryption=" + config.tls();
    }

    @Override
    public void close() throws InterruptedException {
        housekeeping.shutdownNow();
        server.shutdown();
        if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
            log.warn("Flight SQL calls still running after 10 s; closing anyway");
        }
        server.close();
        producer.close();
        try {
            allocator.close();
        } catch (IllegalStateException e) {
            // Arrow's C data import keeps a few bytes of a batch whose buffers did not fit under the limit (a result
            // refused with RESOURCE_EXHAUSTED): reported, and gone with the process.
            log.warn("Flight SQL's Arrow memory was not all given back at close: {}", allocator.toVerboseString(), e);
        }
    }

    private static BasicCallHeaderAuthenticator.CredentialValidator credentials(String username, String password,
            FailedLogins failedLogins) {
        byte[] expectedUser = username.getBytes(StandardCharsets.UTF_8);
        byte[] expectedPassword = password.getBytes(StandardCharsets.UTF_8);
        return (givenUser, givenPassword) -> {
            // Both compared in constant time, and both always, so timing tells nothing about either.
            boolean user = MessageDigest.isEqual(expectedUser, givenUser.getBytes(StandardCharsets.UTF_8));
            boolean pass = MessageDigest.isEqual(expectedPassword, givenPassword.getBytes(StandardCharsets.UTF_8));
            if (!(user & pass)) {
                failedLogins.holdBack();
                throw CallStatus.UNAUTHENTICATED.withDescription("Wrong user name or password").toRuntimeException();
            }
            return () -> givenUser;
        };
    }

    /**
     * Whether only this machine can reach the address: 127.0.0.1 and ::1. Other addresses of 127.0.0.0/8 are set up
     * by hand (aliases, port forwarding in containers), usually so that something else can reach them.
     */
    private static boolean isLocalOnly(InetAddress address) {
        return address instanceof Inet6Address ? address.isLoopbackAddress()
                : Arrays.equals(address.getAddress(), new byte[] {127, 0, 0, 1});
    }

    /** 24 random bytes: 192 bits, in the 32 characters a configured password needs at least. */
    private static String randomPassword() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
