package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.List;

/** How often something happened, with the ids of the first documents it happened to. */
final class Tally {
    static final int MAX_SAMPLES = 5;

    long count;
    final List<String> sampleIds = new ArrayList<>(MAX_SAMPLES);

    void add(String documentId) {
        count++;
        if (sampleIds.size() < MAX_SAMPLES && !sampleIds.contains(documentId)) {
            sampleIds.add(documentId);
        }
    }
}
