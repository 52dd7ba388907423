package io.docmirror.sql;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The SQL name of every relation the catalog shows. A mirrored table's natural SQL name is its own name
 * ({@code orders}, {@code orders__items}) and a container's history is {@code <container>_history}; but DuckDB
 * matches names ignoring case, and nothing stops two containers from wanting one name: {@code Orders} and
 * {@code orders}, a container {@code a__b} beside container {@code a}'s child table {@code a__b}, a container
 * {@code X_history} beside {@code X}'s history, a container {@code docmirror_tables}.
 *
 * <p>So names are handed out in a fixed order of precedence: the catalog's own relations, then root tables, then
 * histories, then child tables; among equals, by container name. Whoever comes first keeps the natural name; a
 * later claimant gets {@code <natural name>__<8 hex digits>}, a hash of its container and table name, so the name
 * depends only on what it names and stays the same from one commit to the next. {@code docmirror_tables}
 * records every table's SQL name. The same mirror always gets the same names.
 */
final class SqlNames {
    private enum Kind { ROOT, HISTORY, CHILD }

    private record Claim(Kind kind, String container, String table, String naturalName) {
    }

    private final Map<String, String> names = new HashMap<>();

    private SqlNames() {
    }

    /** Names every table and history of {@code containers} (by name), around the catalog's {@code reserved}. */
    static SqlNames assign(Map<String, MirroredContainer> containers, List<String> reserved) {
        List<Claim> claims = new ArrayList<>();
        containers.forEach((container, mirrored) -> {
            for (MirroredContainer.Table table : mirrored.tables()) {
                claims.add(new Claim(table.isRoot() ? Kind.ROOT : Kind.CHILD, container, table.name(), table.name()));
                if (table.isRoot()) {
                    claims.add(new Claim(Kind.HISTORY, container, null, table.name() + "_history"));
                }
            }
        });
        claims.sort(Comparator.comparing(Claim::kind).thenComparing(Claim::container)
                .thenComparing(Claim::naturalName));
        Set<String> taken = new HashSet<>();
        reserved.forEach(name -> taken.add(folded(name)));
        SqlNames assigned = new SqlNames();
        for (Claim claim : claims) {
            String name = claim.naturalName;
            for (int digits = 8; !taken.add(folded(name)); digits += 2) {
                name = claim.naturalName + "__" + hash(claim.container + "\0" + claim.table, digits);
            }
            assigned.names.put(key(claim.container, claim.table), name);
        }
        return assigned;
    }

    /** The SQL name of {@code table} of {@code container}. */
    String table(String container, String table) {
        return names.get(key(container, table));
    }

    /** The SQL name of {@code container}'s history. */
    String history(String container) {
        return names.get(key(container, null));
    }

    private static String key(String container, String table) {
        return container + "\0" + (table == null ? "\0history" : table);
    }

    private static String folded(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    private static String hash(String text, int digits) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, Math.min(digits, digest.length * 2));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }
}
