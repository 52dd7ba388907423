package io.docmirror.store;

import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The whole store contract, over the HTTP API. */
class HttpStoreClientTest extends StoreContractTest {
    private EmbeddedStore embedded;
    private StoreHttpServer server;

    @Override
    StoreClient openClient(Path dataDir) {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults(), TestingClock.atEpochSecond(1_767_225_600), false);
        try {
            server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new HttpStoreClient(server.baseUri(), Optional.empty());
    }

    @Test
    void aBulkOperationWithoutItsPartitionKeyIsABadRequestThatChangesNothing() throws Exception {
        store.createItem(ORDERS, "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        Snapshot before = snapshot();

        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(server.baseUri() + "/containers/" + ORDERS + "/bulk/operations"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"operations\":[{\"type\":\"delete\",\"id\":\"o1\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("Bulk operation 1 has no partitionKey");
        assertThat(snapshot()).isEqualTo(before);
    }

    @AfterEach
    void stopServer() {
        server.close();
        embedded.close();
    }
}
