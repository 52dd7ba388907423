package io.docmirror.store.http;

import java.util.List;
import java.util.Locale;

/**
 * What a Cosmos DB request's path addresses, as the master-key signature names it: the resource type (the last type
 * segment: {@code dbs}, {@code colls}, {@code docs}, {@code pkranges}, or empty for the account) and the resource link.
 * A path of even length addresses one resource ({@code dbs/shop/colls/orders}: type {@code colls}, link the whole
 * path); a path of odd length a feed ({@code dbs/shop/colls}: type {@code colls}, link {@code dbs/shop}).
 *
 * @param segments the path's segments, percent-decoded
 */
record CosmosResourcePath(List<String> segments) {
    CosmosResourcePath {
        segments = List.copyOf(segments);
    }

    /** Whether the path is one of the Cosmos DB routes: the account ({@code /}) or below {@code /dbs}. */
    static boolean isCosmos(List<String> segments) {
        return segments.isEmpty() || segments.get(0).equals("dbs");
    }

    String type() {
        int size = segments.size();
        if (size == 0) {
            return "";
        }
        return size % 2 == 0 ? segments.get(size - 2) : segments.get(size - 1);
    }

    /** The link by name: {@code dbs/shop/colls/orders}. */
    String link() {
        int size = segments.size();
        return String.join("/", size % 2 == 0 ? segments : segments.subList(0, size - 1));
    }

    /**
     * The links a valid signature may be over: the link by name, and the resource id of the resource the link ends
     * at in lower case (the SDKs sign so when they address a resource by its id, e.g. a container's partition key
     * ranges through its {@code _self} link).
     */
    List<String> signedLinks() {
        String link = link();
        if (link.isEmpty()) {
            return List.of(link);
        }
        return List.of(link, link.substring(link.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT));
    }
}
