package io.docmirror.store;

import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Repeated wrong keys are slowed down per client address, never locked out (issue 41, defect 5): after
 * {@code store.http.login-failures} of them the answers to an address's further wrong keys are held back, while a
 * request with the right key from the same address (everyone behind one proxy or NAT) is served at once. Keys of at
 * least 192 bits make a lockout protect nothing, and it shut out every client on the address.
 */
class LoginThrottleOverHttpTest {
    private static final String PRIMARY_KEY = "Zm9yLXRlc3RzLW9ubHk6IG5vdC1hLXJlYWwta2V5";
    private static final String WRONG_KEY = "d3JvbmctYnV0LXdlbGwtZm9ybWVkLWd1ZXNzLTAx";

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;

    private void start(Map<String, String> options) throws IOException {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(embedded, StoreConfig.fromProperties(options).withHttp("127.0.0.1", 0)
                .withKeys(PRIMARY_KEY, null));
    }

    @AfterEach
    void tearDown() {
        server.close();
        embedded.close();
    }

    @Test
    void theRightKeyIsServedFromAnAddressThatSentManyWrongOnes() throws Exception {
        // The longest hold is long enough to tell apart from an answer at once, on any machine.
        start(Map.of("store.http.login-failures", "3", "store.http.login-failure-delay-ms", "5000"));
        for (int attempt = 1; attempt <= 3; attempt++) {
            RawHttp.Response wrong = withKey(WRONG_KEY).send(server.port());
            assertThat(wrong.status()).as("attempt %d: %s", attempt, wrong).isEqualTo(401);
        }
        // Held back: 50, 100, 200, 400, 800, 1600, 3200 ms; the next one 5,000 ms.
        long heldNanos = 0;
        for (int attempt = 4; attempt <= 10; attempt++) {
            long started = System.nanoTime();
            RawHttp.Response wrong = withKey(WRONG_KEY).send(server.port());
            heldNanos += System.nanoTime() - started;
            assertThat(wrong.status()).as("attempt %d: %s", attempt, wrong).isEqualTo(401);
        }
        System.out.printf("seven wrong keys beyond the allowed took %d ms%n", heldNanos / 1_000_000);
        assertThat(heldNanos).as("the wrong keys' answers were held back (at least 6,350 ms in all)")
                .isGreaterThanOrEqualTo(Duration.ofMillis(6350).toNanos());

        // The address keeps guessing on other connections while the right key is served.
        Thread guesser = new Thread(() -> {
            try {
                withKey(WRONG_KEY).send(server.port());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "guesser");
        guesser.start();
        long started = System.nanoTime();
        RawHttp.Response right = withKey(PRIMARY_KEY).send(server.port());
        long rightNanos = System.nanoTime() - started;
        guesser.join(30_000);
        System.out.printf("the right key from the same address answered in %d ms%n", rightNanos / 1_000_000);
        assertThat(right.status()).as(right.toString()).isEqualTo(200);
        assertThat(rightNanos).as("the right key's answer is not held back like a wrong one's (5,000 ms)")
                .isLessThan(Duration.ofMillis(5000).toNanos());
    }

    private static RawHttp withKey(String key) {
        return RawHttp.request("GET", "/containers").header("Authorization", "Bearer " + key);
    }
}
