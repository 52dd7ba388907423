package io.docmirror.sql.flight;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The network SQL endpoint's options ({@code flight.*}), each declared once below with its rule; docs/configuration.md
 * is generated from the declarations. The query limits are the SQL endpoint's own ({@code sql.*}).
 *
 * @param bind {@code flight.bind}: the address to listen on
 * @param port {@code flight.port}: the port (0 picks a free one)
 * @param username {@code flight.username}: the one user name clients log in with
 * @param password {@code flight.password}: its password; empty means a random one is made at each start
 * @param tlsCertificate {@code flight.tls-certificate}: a PEM certificate chain; with it the endpoint speaks TLS only
 * @param tlsPrivateKey {@code flight.tls-private-key}: the PEM (PKCS#8) private key of that certificate
 * @param batchRows {@code flight.batch-rows}: rows per Arrow record batch sent
 * @param allowPlaintext {@code flight.allow-plaintext}: listen off loopback without TLS all the same
 * @param ticketLifetime {@code flight.ticket-lifetime-ms}: how long a ticket can be fetched (once)
 * @param maxTicketsPerClient {@code flight.max-tickets-per-client}: tickets one client holds; beyond, its oldest go
 * @param maxTickets {@code flight.max-tickets}: tickets all clients hold; beyond, the oldest go
 * @param streamIdleTimeout {@code flight.stream-idle-timeout-ms}: how long a result waits for a client reading nothing
 * @param maxStreamsPerClient {@code flight.max-streams-per-client}: results one client reads at once
 * @param maxStreams {@code flight.max-streams}: results all clients read at once
 */
public record FlightConfig(String bind, int port, String username, Optional<String> password,
        Optional<Path> tlsCertificate, Optional<Path> tlsPrivateKey, int batchRows, boolean allowPlaintext,
        Duration ticketLifetime, int maxTicketsPerClient, int maxTickets, Duration streamIdleTimeout,
        int maxStreamsPerClient, int maxStreams) {
    /** The fewest characters of a configured password: 32 random base64 characters carry 192 bits. */
    public static final int MIN_PASSWORD_LENGTH = 32;
    public static final int MAX_PASSWORD_LENGTH = 512;
    /** The prefix of the options below. */
    public static final String PREFIX = "flight.";
    public static final ConfigOption BIND = new ConfigOption("flight.bind", "127.0.0.1",
            "The address the Arrow Flight SQL endpoint listens on; 0.0.0.0 for every interface. Any address but "
                    + "`127.0.0.1` and `::1` needs TLS, or `flight.allow-plaintext`.");
    public static final ConfigOption PORT = new ConfigOption("flight.port", "32010",
            "Its port; 0 picks a free one. `--port` of `sql serve` and `--sql-port` of `run` override it.")
            .withRule(ConfigRule.between(0, 65_535));
    public static final ConfigOption USERNAME = new ConfigOption("flight.username", "docmirror",
            "The user name clients log in with.");
    public static final ConfigOption PASSWORD = new ConfigOption("flight.password", "",
            "The password, 32 to 512 characters (`openssl rand -base64 32`), never printed; empty makes a random "
                    + "one at each start, printed with the JDBC URL.");
    public static final ConfigOption TLS_CERTIFICATE = new ConfigOption("flight.tls-certificate", "",
            "A PEM certificate chain file; when given, the endpoint speaks TLS only.");
    public static final ConfigOption TLS_PRIVATE_KEY = new ConfigOption("flight.tls-private-key", "",
            "The certificate's private key, a PEM PKCS#8 file (required with a certificate).");
    public static final ConfigOption BATCH_ROWS = new ConfigOption("flight.batch-rows", "65536",
            "Rows per Arrow record batch sent to a client.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption ALLOW_PLAINTEXT = new ConfigOption("flight.allow-plaintext", "false",
            "`true` lets the endpoint listen on an address other than `127.0.0.1` or `::1` without TLS, passwords "
                    + "and results in the clear (a trusted network, or TLS ended in front of it).");
    public static final ConfigOption TICKET_LIFETIME_MS = new ConfigOption("flight.ticket-lifetime-ms", "300000",
            "How long the ticket of a GetFlightInfo can be fetched. A query runs when its ticket is fetched, on the "
                    + "mirror's current version; a ticket is fetched once (a retry after a broken stream asks for a "
                    + "new FlightInfo).")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption MAX_TICKETS_PER_CLIENT = new ConfigOption("flight.max-tickets-per-client",
            "100", "Tickets one client (one login) holds at most; a newer one drops the client's oldest.")
            .withRule(ConfigRule.atLeast(1));
    /** At least {@link #MAX_TICKETS_PER_CLIENT}, a rule across two options that the constructor checks. */
    public static final ConfigOption MAX_TICKETS = new ConfigOption("flight.max-tickets", "10000",
            "Tickets all clients hold at most; a newer one drops the oldest. At least `"
                    + MAX_TICKETS_PER_CLIENT.key() + "`.");
    public static final ConfigOption STREAM_IDLE_TIMEOUT_MS = new ConfigOption("flight.stream-idle-timeout-ms",
            "30000", "How long a result's stream waits for a client that reads nothing before it drops the stream "
                    + "(and the query's memory with it).")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption MAX_STREAMS_PER_CLIENT = new ConfigOption("flight.max-streams-per-client", "4",
            "Results one client (one login) may be reading at once; one more fetch is refused until one ends.")
            .withRule(ConfigRule.atLeast(1));
    /** At least {@link #MAX_STREAMS_PER_CLIENT}, a rule across two options that the constructor checks. */
    public static final ConfigOption MAX_STREAMS = new ConfigOption("flight.max-streams", "16",
            "Results all clients may be reading at once; one more fetch is refused until one ends. At least `"
                    + "flight.max-streams-per-client`.");
    public static final List<ConfigOption> OPTIONS = List.of(BIND, PORT, USERNAME, PASSWORD, TLS_CERTIFICATE,
            TLS_PRIVATE_KEY, BATCH_ROWS, ALLOW_PLAINTEXT, TICKET_LIFETIME_MS, MAX_TICKETS_PER_CLIENT, MAX_TICKETS,
            STREAM_IDLE_TIMEOUT_MS, MAX_STREAMS_PER_CLIENT, MAX_STREAMS);

    public FlightConfig {
        requireNonNull(bind, "bind is null");
        requireNonNull(username, "username is null");
        requireNonNull(password, "password is null");
        requireNonNull(tlsCertificate, "tlsCertificate is null");
        requireNonNull(tlsPrivateKey, "tlsPrivateKey is null");
        PORT.check(port);
        password.ifPresent(given -> {
            if (given.length() < MIN_PASSWORD_LENGTH || given.length() > MAX_PASSWORD_LENGTH) {
                // Only its length: a password never appears in a message.
                throw PASSWORD.invalid("(hidden, " + given.length() + " characters)", "must be "
                        + MIN_PASSWORD_LENGTH + " to " + MAX_PASSWORD_LENGTH + " characters long: a password is "
                        + "guessed offline at the speed of logins, so it is as long as a key (openssl rand -base64 "
                        + "32)");
            }
        });
        if (username.isBlank()) {
            throw USERNAME.invalid(username, "must not be empty");
        }
        if (tlsCertificate.isPresent() && tlsPrivateKey.isEmpty()) {
            throw TLS_CERTIFICATE.invalid(tlsCertificate.get(), "TLS needs " + TLS_PRIVATE_KEY.key() + " as well");
        }
        if (tlsPrivateKey.isPresent() && tlsCertificate.isEmpty()) {
            throw TLS_PRIVATE_KEY.invalid(tlsPrivateKey.get(), "TLS needs " + TLS_CERTIFICATE.key() + " as well");
        }
        BATCH_ROWS.check(batchRows);
        requireNonNull(ticketLifetime, "ticketLifetime is null");
        TICKET_LIFETIME_MS.check(ticketLifetime.toMillis());
        MAX_TICKETS_PER_CLIENT.check(maxTicketsPerClient);
        if (maxTickets < maxTicketsPerClient) {
            throw MAX_TICKETS.invalid(maxTickets, "must be at least " + MAX_TICKETS_PER_CLIENT.key() + " ("
                    + maxTicketsPerClient + ")");
        }
        requireNonNull(streamIdleTimeout, "streamIdleTimeout is null");
        STREAM_IDLE_TIMEOUT_MS.check(streamIdleTimeout.toMillis());
        MAX_STREAMS_PER_CLIENT.check(maxStreamsPerClient);
        if (maxStreams < maxStreamsPerClient) {
            throw MAX_STREAMS.invalid(maxStreams, "must be at least " + MAX_STREAMS_PER_CLIENT.key() + " ("
                    + maxStreamsPerClient + ")");
        }
    }

    public static FlightConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads the {@code flight.*} entries of a config file; missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static FlightConfig fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of(PREFIX, OPTIONS, properties);
        return new FlightConfig(
                section.text(BIND).trim(),
                section.intValue(PORT),
                section.text(USERNAME),
                Optional.of(section.text(PASSWORD)).filter(password -> !password.isEmpty()),
                Optional.of(section.text(TLS_CERTIFICATE).trim()).filter(path -> !path.isEmpty()).map(Path::of),
                Optional.of(section.text(TLS_PRIVATE_KEY).trim()).filter(path -> !path.isEmpty()).map(Path::of),
                section.intValue(BATCH_ROWS),
                section.booleanValue(ALLOW_PLAINTEXT),
                Duration.ofMillis(section.longValue(TICKET_LIFETIME_MS)),
                section.intValue(MAX_TICKETS_PER_CLIENT),
                section.intValue(MAX_TICKETS),
                Duration.ofMillis(section.longValue(STREAM_IDLE_TIMEOUT_MS)),
                section.intValue(MAX_STREAMS_PER_CLIENT),
                section.intValue(MAX_STREAMS));
    }

    public FlightConfig withListener(String bind, int port) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets, streamIdleTimeout,
                maxStreamsPerClient, maxStreams);
    }

    public FlightConfig withPassword(String password) {
        return new FlightConfig(bind, port, username, Optional.of(password), tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets, streamIdleTimeout,
                maxStreamsPerClient, maxStreams);
    }

    public FlightConfig withTls(Path certificate, Path privateKey) {
        return new FlightConfig(bind, port, username, password, Optional.of(certificate), Optional.of(privateKey),
                batchRows, allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets, streamIdleTimeout,
                maxStreamsPerClient, maxStreams);
    }

    public FlightConfig withAllowPlaintext(boolean allow) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows, allow,
                ticketLifetime, maxTicketsPerClient, maxTickets, streamIdleTimeout, maxStreamsPerClient, maxStreams);
    }

    public FlightConfig withTicketLimits(int perClient, int total) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, perClient, total, streamIdleTimeout, maxStreamsPerClient, maxStreams);
    }

    /** This configuration with other limits on the results being read. */
    public FlightConfig withStreamLimits(Duration idleTimeout, int perClient, int total) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets, idleTimeout, perClient, total);
    }

    public boolean tls() {
        return tlsCertificate.isPresent();
    }
}
