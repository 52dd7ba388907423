package io.docmirror.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A Prometheus scrape, as a test reads it: the exposition text, and one sample's value in it. */
final class Scrape {
    private Scrape() {
    }

    static String text(URI uri) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /** The value of the sample written exactly as {@code series} (name and labels in exposition order). */
    static double sample(String text, String series) {
        Matcher matcher = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
        assertThat(matcher.find()).as("a sample %s in:%n%s", series, text).isTrue();
        return Double.parseDouble(matcher.group(1));
    }
}
