package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.List;

/** How often something happened, with the ids of the first documents it happened to. */
final class Tally {
    static final int MAX_SAMPLES = 5;

    /** What happened: for a conflict its kept type, seen type and resolution; empty strings for an overflow. */
    final String keptType;
    final String seenType;
    final String resolution;
    long count;
    final List<String> sampleIds = new ArrayList<>(MAX_SAMPLES);

    Tally(String keptType, String seenType, String resolution) {
        this.keptType = keptType;
        this.seenType = seenType;
        this.resolution = resolution;
    }

    boolean describes(String kept, String seen, String resolved) {
        return keptType.equals(kept) && seenType.equals(seen) && resolution.equals(resolved);
    }

    void add(String documentId) {
        count++;
        sample(documentId);
    }

    /** Adds what {@code later} counted after this tally's documents. */
    void addAll(Tally later) {
        count += later.count;
        later.sampleIds.forEach(this::sample);
    }

    private void sample(String documentId) {
        if (sampleIds.size() < MAX_SAMPLES && !sampleIds.contains(documentId)) {
            sampleIds.add(documentId);
        }
    }
}
