package io.docmirror.cli;

import io.docmirror.store.SnapshotSource;
import io.docmirror.store.StoreClient;
import io.docmirror.store.http.HttpStoreClient;
import picocli.CommandLine.Option;

import java.util.Optional;

/**
 * Which store the mirror follows, for the commands that read it ({@code mirror sync}, {@code mirror run},
 * {@code status}): a store served by another process or machine ({@code --store URL}), or the one in the data
 * directory, opened in this process.
 */
final class MirrorStoreOption {
    /** The environment variable with the store's HTTP key, when {@code --store} names a store that requires one. */
    static final String STORE_KEY_VARIABLE = "DOCMIRROR_STORE_KEY";

    @Option(names = "--store", paramLabel = "URL",
            description = "The store's HTTP API (e.g. http://127.0.0.1:8081), for a store served by another process "
                    + "or machine; its key, if it needs one, from $" + STORE_KEY_VARIABLE + ". Default: the store "
                    + "in DIR, opened in this process.")
    String url;

    StoreClient open(DataDirOptions dataDir) {
        if (url == null) {
            return dataDir.openStore();
        }
        return new HttpStoreClient(url, Optional.ofNullable(System.getenv(STORE_KEY_VARIABLE)));
    }

    /**
     * The snapshots of a store {@link #open} gave: those the remote store's HTTP API holds for this client, or the
     * store in this process itself.
     */
    static SnapshotSource snapshotsOf(StoreClient store) {
        return store instanceof HttpStoreClient remote ? remote.asSnapshotSource() : (SnapshotSource) store;
    }

    /** The store, as a message names it: its URL, or the data directory it lives in. */
    String describe(DataDirOptions dataDir) {
        return url != null ? url : dataDir.data.toString();
    }
}
