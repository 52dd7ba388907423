package io.docmirror.config;

import java.util.Comparator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The known key nearest to a mistyped one, to suggest in an error. A known key that contains the last part of the
 * mistyped one (of three characters or more) is nearest: {@code sql.timeout} suggests {@code sql.query-timeout-ms}.
 * Then one in the same section (the most leading parts in common: {@code mirror.batch.size} suggests a
 * {@code mirror.batch.*} key). After that, the key at the smallest edit distance (insertions, deletions, substitutions and swaps of two
 * neighbouring characters each count one): {@code store.sync-write} suggests {@code store.sync-writes}. Of equally
 * near keys, the first known one wins.
 */
public final class NearestKey {
    private final List<String> known;

    /** @param known the keys to suggest from, at least one */
    public NearestKey(List<String> known) {
        if (known.isEmpty()) {
            throw new IllegalArgumentException("no known keys to suggest from");
        }
        this.known = List.copyOf(known);
    }

    public String to(String key) {
        requireNonNull(key, "key is null");
        String lastPart = key.substring(key.lastIndexOf('.') + 1);
        Comparator<String> nearness = Comparator
                .comparing((String candidate) -> lastPart.length() >= 3 && candidate.contains(lastPart) ? 0 : 1)
                .thenComparing(candidate -> -leadingPartsInCommon(key, candidate))
                .thenComparing(candidate -> distance(key, candidate));
        return known.stream().min(nearness).orElseThrow();
    }

    private static int leadingPartsInCommon(String a, String b) {
        String[] first = a.split("\\.");
        String[] second = b.split("\\.");
        int common = 0;
        while (common < first.length - 1 && common < second.length - 1 && first[common].equals(second[common])) {
            common++;
        }
        return common;
    }

    /** Optimal string alignment distance, in three rows of the usual table. */
    private static int distance(String a, String b) {
        int[] beforePrevious = new int[b.length() + 1];
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    current[j] = Math.min(current[j], beforePrevious[j - 2] + 1);
                }
            }
            int[] recycled = beforePrevious;
            beforePrevious = previous;
            previous = current;
            current = recycled;
        }
        return previous[b.length()];
    }
}
