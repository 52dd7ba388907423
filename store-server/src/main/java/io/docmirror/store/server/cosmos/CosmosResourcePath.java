package io.docmirror.store.server.cosmos;

import java.util.ArrayList;
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
     * The links a valid signature may be over: the link as the path has it, and, where the path names every resource
     * by its resource id, the last of those ids in lower case (the SDKs sign so when they address a resource by its
     * id, e.g. a container's partition key ranges through its {@code _self} link).
     */
    List<String> signedLinks() {
        String link = link();
        List<String> names = new ArrayList<>();
        List<String> linked = segments.subList(0, segments.size() - segments.size() % 2);
        for (int index = 1; index < linked.size(); index += 2) {
            names.add(linked.get(index));
        }
        // Only a path that names every resource by its id may be signed over the last id alone: a signature over a
        // name's last segment ("o1") would otherwise hold for that name in every database and container.
        if (link.isEmpty() || !CosmosResourceIds.isChainOfIds(names)) {
            return List.of(link);
        }
        return List.of(link, names.get(names.size() - 1).toLowerCase(Locale.ROOT));
    }
}
