package io.docmirror.store.server.docmirror;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingClock;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /containers/{c}/changefeed}: the pull model over HTTP, with its errors. */
class ChangeFeedHttpRouteTest {
    @TempDir
    Path dataDir;

    EmbeddedStore store;
    StoreHttpServer server;
    HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() throws Exception {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withChangeLogRetention(-1, 2),
                TestingClock.atEpochSecond(1_767_225_600), false);
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        store.createContainer(ContainerProperties.of("orders", "/customer").withLogPartitions(1));
    }

    @AfterEach
    void tearDown() {
        server.close();
        store.close();
    }

    private HttpResponse<String> get(String pathAndQuery) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.baseUri() + pathAndQuery)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void pagesFollowTheContinuationUntilCaughtUp() throws Exception {
        for (int index = 0; index < 5; index++) {
            store.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customer\":\"c\"}");
        }
        List<String> ids = new ArrayList<>();
        String next = "/containers/orders/changefeed?mode=all-versions-and-deletes&start=beginning&maxItems=2";
        JsonNode page;
        do {
            HttpResponse<String> response = get(next);
            assertThat(response.statusCode()).isEqualTo(200);
            page = StoreJson.mapper().readTree(response.body());
            page.get("events").forEach(event -> ids.add(event.get("id").textValue()));
            next = "/containers/orders/changefeed?maxItems=2&continuation="
                    + URLEncoder.encode(page.get("continuation").textValue(), StandardCharsets.UTF_8);
        } while (!page.get("caughtUp").booleanValue());

        assertThat(ids).containsExactly("o0", "o1", "o2", "o3", "o4");
    }

    /** Issue 41, defect 6: a maxItems of ten or more characters used to skip store.http.max-page-items. */
    @Test
    void pagesHoldAtMostTheServersCapHoweverMaxItemsIsWritten() throws Exception {
        for (int index = 0; index < 5; index++) {
            store.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customer\":\"c\"}");
        }
        try (StoreHttpServer capped = StoreHttpServer.start(store,
                StoreConfig.fromProperties(Map.of("store.http.max-page-items", "2")).withHttp("127.0.0.1", 0))) {
            for (String asked : List.of("2147483647", "0000005000", "99999999999999999999")) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(capped.baseUri()
                        + "/containers/orders/changefeed?start=beginning&maxItems=" + asked)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                assertThat(StoreJson.mapper().readTree(response.body()).get("events")).as(asked).hasSize(2);
            }
            HttpResponse<String> signed = http.send(HttpRequest.newBuilder(URI.create(capped.baseUri()
                    + "/containers/orders/changefeed?maxItems=%2B5000")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(signed.statusCode()).isEqualTo(400);
            assertThat(signed.body())
                    .contains("Invalid maxItems '+5000': a page size is a positive integer, written in decimal digits");
        }
    }

    @Test
    void errorsHaveTheirStatusAndSayWhy() throws Exception {
        assertThat(get("/containers/missing/changefeed")).satisfies(response -> {
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.body()).contains("Cannot read the change feed of container missing: no such container");
        });
        assertThat(get("/containers/orders/changefeed?mode=incremental").statusCode()).isEqualTo(400);
        assertThat(get("/containers/orders/changefeed?start=yesterday").body())
                .contains("Invalid start 'yesterday': expected beginning, now or an ISO-8601 instant");
        assertThat(get("/containers/orders/changefeed?continuation=bogus").statusCode()).isEqualTo(400);

        String token = ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning()).continuation();
        for (int index = 0; index < 5; index++) {
            store.upsertItem("orders", "{\"id\":\"o\",\"customer\":\"c\",\"v\":" + index + "}");
        }
        store.trimChangeLog(100);
        HttpResponse<String> gone = get("/containers/orders/changefeed?continuation=" + token);
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(gone.body()).contains("the oldest available position is after LSN 3");
    }
}
