package io.docmirror.bench;

import java.lang.management.ManagementFactory;

/**
 * Wall time and the process's CPU time (every thread, so two busy cores give twice the wall time) since it started:
 * on two cores both are printed, because the CPU time is what a loaded machine does not change.
 */
final class Stopwatch {
    private final long startedAt = System.nanoTime();
    private final long cpuAtStart = processCpuNanos();

    /** The seconds since the start, wall and CPU. */
    record Lap(double seconds, double cpuSeconds) {
    }

    static Stopwatch start() {
        return new Stopwatch();
    }

    Lap lap() {
        return new Lap((System.nanoTime() - startedAt) / 1e9, (processCpuNanos() - cpuAtStart) / 1e9);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
