package io.docmirror.store.server;

import java.time.Duration;

/**
 * Lets requests in until the server closes, and lets the close wait for the requests in flight until their answers
 * are written: so closing finishes the work it accepted and refuses the rest (with 503).
 */
final class RequestGate {
    private int inFlight;
    private boolean closed;

    /** @return false once the gate is closed: the request must be refused */
    synchronized boolean enter() {
        if (closed) {
            return false;
        }
        inFlight++;
        return true;
    }

    /** A request that {@link #enter()}ed has been answered (or its connection lost). */
    synchronized void exit() {
        inFlight--;
        if (inFlight == 0) {
            notifyAll();
        }
    }

    /**
     * Closes the gate and waits until no request is in flight.
     *
     * @return how many requests are still in flight when the timeout has passed (0: all finished)
     */
    synchronized int closeAndAwait(Duration timeout) throws InterruptedException {
        closed = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inFlight > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return inFlight;
    }
}
