package io.docmirror.s3fixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The server starts from the copied class path, with its bucket, and answers S3's API. */
class S3ProxyServerTest {
    @TempDir
    Path work;

    @Test
    void answersS3RequestsInItsBucket() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(work, "warehouse")) {
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(server.endpoint() + "/warehouse/some/key")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());

            // The bucket exists (NoSuchBucket otherwise), the object not.
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.body()).contains("<Code>NoSuchKey</Code>");
        }
    }
}
