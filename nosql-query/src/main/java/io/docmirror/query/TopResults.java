package io.docmirror.query;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The first results of an ORDER BY query in its {@link SortOrder}, at most {@code capacity} of them, whatever the
 * number of rows offered: a heap whose head is the last result kept, which a better one pushes out. Memory is bound
 * by the page asked for, not by the documents; each row costs a comparison or two, and a logarithm of the capacity
 * when it is kept.
 */
final class TopResults {
    private final SortOrder order;
    private final long capacity;
    private final PriorityQueue<SortedResult> heap;

    TopResults(SortOrder order, long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.order = order;
        this.capacity = capacity;
        // The last kept result at the head: the one to push out.
        this.heap = new PriorityQueue<>(order.ofResults().reversed());
    }

    /** Whether a row of this key would be kept: asked before the row is projected, which most rows need not be. */
    boolean admits(SortKey key) {
        return heap.size() < capacity || order.compare(key, heap.peek().key()) < 0;
    }

    /** Keeps a result that {@link #admits} its key, pushing out the last one kept when it holds its capacity. */
    void add(SortedResult result) {
        heap.add(result);
        if (heap.size() > capacity) {
            heap.poll();
        }
    }

    /** The results kept, first to last. */
    List<SortedResult> inOrder() {
        List<SortedResult> results = new ArrayList<>(heap);
        results.sort(order.ofResults());
        return results;
    }
}
