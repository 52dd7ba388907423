package io.docmirror.sql.flight;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The network SQL endpoint's options ({@code flight.*}; the reference is docs/configuration.md). The query limits
 * are the SQL endpoint's own ({@code sql.*}).
 *
 * @param bind {@code flight.bind}: the address to listen on
 * @param port {@code flight.port}: the port (0 picks a free one)
 * @param username {@code flight.username}: the one user name clients log in with
 * @param password {@code flight.password}: its password; empty means a random one is made at each start
 * @param tlsCertificate {@code flight.tls-certificate}: a PEM certificate chain; with it the endpoint speaks TLS only
 * @param tlsPrivateKey {@code flight.tls-private-key}: the PEM (PKCS#8) private key of that certificate
 * @param batchRows {@code flight.batch-rows}: rows per Arrow record batch sent
 * @param allowPlaintext {@code flight.allow-plaintext}: listen off loopback without TLS all the same
 * @param ticketLifetime {@code flight.ticket-lifetime-ms}: how long a ticket can be fetched, and fetched again
 * @param maxTicketsPerClient {@code flight.max-tickets-per-client}: tickets one client holds; beyond, its oldest go
 * @param maxTickets {@code flight.max-tickets}: tickets all clients hold; beyond, the oldest go
 */
public record FlightConfig(String bind, int port, String username, Optional<String> password,
        Optional<Path> tlsCertificate, Optional<Path> tlsPrivateKey, int batchRows, boolean allowPlaintext,
        Duration ticketLifetime, int maxTicketsPerClient, int maxTickets) {
    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("flight.bind", "127.0.0.1",
                    "The address the Arrow Flight SQL endpoint listens on; 0.0.0.0 for every interface. Any address "
                            + "but `127.0.0.1` and `::1` needs TLS, or `flight.allow-plaintext`."),
            new ConfigOption("flight.port", "32010",
                    "Its port; 0 picks a free one. `--port` of `sql serve` and `--sql-port` of `run` override it."),
            new ConfigOption("flight.username", "docmirror", "The user name clients log in with."),
            new ConfigOption("flight.password", "",
                    "The password; empty makes a random one at each start, printed with the JDBC URL."),
            new ConfigOption("flight.tls-certificate", "",
                    "A PEM certificate chain file; when given, the endpoint speaks TLS only."),
            new ConfigOption("flight.tls-private-key", "",
                    "The certificate's private key, a PEM PKCS#8 file (required with a certificate)."),
            new ConfigOption("flight.batch-rows", "65536", "Rows per Arrow record batch sent to a client."),
            new ConfigOption("flight.allow-plaintext", "false",
                    "`true` lets the endpoint listen on an address other than `127.0.0.1` or `::1` without TLS, "
                            + "passwords and results in the clear (a trusted network, or TLS ended in front of it)."),
            new ConfigOption("flight.ticket-lifetime-ms", "300000",
                    "How long the ticket of a GetFlightInfo can be fetched. A query runs when its ticket is "
                            + "fetched, and a ticket can be fetched again until then (a retry after a broken "
                            + "stream), each time on the mirror's current version."),
            new ConfigOption("flight.max-tickets-per-client", "100",
                    "Tickets one client (one login) holds at most; a newer one drops the client's oldest."),
            new ConfigOption("flight.max-tickets", "10000",
                    "Tickets all clients hold at most; a newer one drops the oldest."));

    public FlightConfig {
        requireNonNull(bind, "bind is null");
        requireNonNull(username, "username is null");
        requireNonNull(password, "password is null");
        requireNonNull(tlsCertificate, "tlsCertificate is null");
        requireNonNull(tlsPrivateKey, "tlsPrivateKey is null");
        if (port < 0 || port > 65_535) {
            throw ConfigSection.invalid("flight.port", port, "must be a port number, 0 to 65535");
        }
        if (username.isBlank()) {
            throw ConfigSection.invalid("flight.username", username, "must not be empty");
        }
        if (tlsCertificate.isPresent() && tlsPrivateKey.isEmpty()) {
            throw ConfigSection.invalid("flight.tls-certificate", tlsCertificate.get(),
                    "TLS needs flight.tls-private-key as well");
        }
        if (tlsPrivateKey.isPresent() && tlsCertificate.isEmpty()) {
            throw ConfigSection.invalid("flight.tls-private-key", tlsPrivateKey.get(),
                    "TLS needs flight.tls-certificate as well");
        }
        if (batchRows < 1) {
            throw ConfigSection.invalid("flight.batch-rows", batchRows, "must be at least 1");
        }
        requireNonNull(ticketLifetime, "ticketLifetime is null");
        if (ticketLifetime.isNegative() || ticketLifetime.isZero()) {
            throw ConfigSection.invalid("flight.ticket-lifetime-ms", ticketLifetime.toMillis(), "must be positive");
        }
        if (maxTicketsPerClient < 1) {
            throw ConfigSection.invalid("flight.max-tickets-per-client", maxTicketsPerClient, "must be at least 1");
        }
        if (maxTickets < maxTicketsPerClient) {
            throw ConfigSection.invalid("flight.max-tickets", maxTickets,
                    "must be at least flight.max-tickets-per-client (" + maxTicketsPerClient + ")");
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
        ConfigSection section = ConfigSection.of("flight.", OPTIONS, properties);
        return new FlightConfig(
                section.text("flight.bind").trim(),
                section.intValue("flight.port"),
                section.text("flight.username"),
                Optional.of(section.text("flight.password")).filter(password -> !password.isEmpty()),
                Optional.of(section.text("flight.tls-certificate").trim()).filter(path -> !path.isEmpty()).map(Path::of),
                Optional.of(section.text("flight.tls-private-key").trim()).filter(path -> !path.isEmpty()).map(Path::of),
                section.intValue("flight.batch-rows"),
                section.booleanValue("flight.allow-plaintext"),
                Duration.ofMillis(section.longValue("flight.ticket-lifetime-ms")),
                section.intValue("flight.max-tickets-per-client"),
                section.intValue("flight.max-tickets"));
    }

    public FlightConfig withListener(String bind, int port) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets);
    }

    public FlightConfig withPassword(String password) {
        return new FlightConfig(bind, port, username, Optional.of(password), tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets);
    }

    public FlightConfig withTls(Path certificate, Path privateKey) {
        return new FlightConfig(bind, port, username, password, Optional.of(certificate), Optional.of(privateKey),
                batchRows, allowPlaintext, ticketLifetime, maxTicketsPerClient, maxTickets);
    }

    public FlightConfig withAllowPlaintext(boolean allow) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows, allow,
                ticketLifetime, maxTicketsPerClient, maxTickets);
    }

    public FlightConfig withTicketLimits(int perClient, int total) {
        return new FlightConfig(bind, port, username, password, tlsCertificate, tlsPrivateKey, batchRows,
                allowPlaintext, ticketLifetime, perClient, total);
    }

    public boolean tls() {
        return tlsCertificate.isPresent();
    }
}
