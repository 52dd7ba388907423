package io.docmirror.spark.backfill;

import io.docmirror.store.http.HttpStoreClient;

import java.io.Serializable;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where the store's HTTP API is, and the key that opens it: what an executor needs to read the store.
 *
 * @param key the store's key; null when it needs none
 */
public record StoreAddress(String uri, String key) implements Serializable {
    public StoreAddress {
        requireNonNull(uri, "uri is null");
    }

    /** A new client of the store; close it when done. */
    public HttpStoreClient client() {
        return new HttpStoreClient(uri, Optional.ofNullable(key));
    }

    @Override
    public String toString() {
        // Never the key: an address is logged.
        return uri;
    }
}
