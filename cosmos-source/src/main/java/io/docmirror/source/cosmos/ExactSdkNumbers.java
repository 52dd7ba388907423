package io.docmirror.source.cosmos;

import com.azure.cosmos.implementation.Utils;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.json.ExactTreeDeserializer;
import io.docmirror.json.LiteralNumberNode;
import io.docmirror.json.NumberFidelity;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Makes the Cosmos DB SDK read numbers exactly. The SDK parses every answer into a Jackson tree with a mapper of its
 * own, one per JVM, before any item type or item serializer sees it, and that mapper reads decimals as doubles:
 * {@code 0.1000000000000000055511151231257827} would reach the mirror as {@code 0.1} and {@code 1e400} as infinity.
 * No public option changes it, so docmirror gives that mapper the store's exact tree reader (numbers keep their
 * text), once, before the SDK parses anything: Jackson keeps the reader it first used for a type, so installing it
 * later would not take, which {@link #install} checks.
 */
final class ExactSdkNumbers {
    private static final String PROBE = "{\"n\":0.1000000000000000055511151231257827}";

    private ExactSdkNumbers() {
    }

    /**
     * @throws IllegalStateException when the SDK already parsed JSON in this JVM with its own reader, so its numbers
     *     cannot be made exact any more
     */
    static synchronized void install() {
        ObjectMapper sdk = Utils.getSimpleObjectMapper();
        // Registered before any probe (a probe would fix the reader); a second registration is ignored by Jackson.
        sdk.registerModule(ExactTreeDeserializer.module(NumberFidelity.SPELLING));
        if (!readsExactly(sdk)) {
            throw new IllegalStateException("The Cosmos DB SDK read JSON in this process before docmirror could make "
                    + "its numbers exact; open the Cosmos DB source before any other use of the SDK");
        }
    }

    private static boolean readsExactly(ObjectMapper sdk) {
        try {
            JsonNode probe = sdk.readTree(PROBE).get("n");
            return probe instanceof LiteralNumberNode && probe.toString().equals("0.1000000000000000055511151231257827");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot check how the Cosmos DB SDK reads numbers: " + e.getMessage(), e);
        }
    }
}
