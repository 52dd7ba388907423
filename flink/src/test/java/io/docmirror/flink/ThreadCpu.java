package io.docmirror.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * CPU time of this process's threads, by thread, at one moment, from Linux's {@code /proc/self/task}: Java's threads
 * and the JVM's own (the garbage collector's, the JIT compiler's) and RocksDB's, each under its native name (a Java
 * thread's name, cut to 15 characters), with the time each waited runnable for a core ({@code schedstat}): a thread
 * that waits long for one is short of CPU, not of work. The difference of two tells where a span's CPU went; threads
 * that ended within the span are what is left of the process's CPU.
 */
final class ThreadCpu {
    /** Linux counts a thread's CPU in USER_HZ ticks, 100 a second (fixed for user space). */
    private static final double TICKS_A_SECOND = 100;
    private static final Path TASKS = Path.of("/proc/self/task");

    private final Map<String, String> names;
    private final Map<String, Long> ticks;
    private final Map<String, Long> waitedNanos;

    private ThreadCpu(Map<String, String> names, Map<String, Long> ticks, Map<String, Long> waitedNanos) {
        this.names = names;
        this.ticks = ticks;
        this.waitedNanos = waitedNanos;
    }

    static ThreadCpu now() {
        Map<String, String> names = new HashMap<>();
        Map<String, Long> ticks = new HashMap<>();
        Map<String, Long> waitedNanos = new HashMap<>();
        List<Path> tasks;
        try (Stream<Path> listed = Files.list(TASKS)) {
            tasks = listed.toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list this process's threads in " + TASKS, e);
        }
        for (Path task : tasks) {
            String stat;
            String schedstat;
            try {
                stat = Files.readString(task.resolve("stat"));
                schedstat = Files.readString(task.resolve("schedstat"));
            } catch (NoSuchFileException ended) {
                // The thread ended since the listing: its CPU is in the process's, not in any thread's.
                continue;
            } catch (IOException e) {
                if (ended(task, e)) {
                    // Ending as it was read (the kernel answers ESRCH for a thread on its way out): the same.
                    continue;
                }
                throw new UncheckedIOException("Cannot read " + task.resolve("stat"), e);
            }
            // "<tid> (<name>) <state> ..." then utime and stime as the 14th and 15th fields.
            int nameEnd = stat.lastIndexOf(')');
            String[] fields = stat.substring(nameEnd + 2).split(" ");
            String tid = task.getFileName().toString();
            names.put(tid, stat.substring(stat.indexOf('(') + 1, nameEnd));
            ticks.put(tid, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
            // "<ns on a core> <ns waiting runnable for one> <time slices>"
            waitedNanos.put(tid, Long.parseLong(schedstat.trim().split(" ")[1]));
        }
        return new ThreadCpu(names, ticks, waitedNanos);
    }

    /** Whether reading {@code task} failed because its thread ended: it is gone, or the kernel says so (ESRCH). */
    private static boolean ended(Path task, IOException failure) {
        return !Files.exists(task) || "No such process".equals(failure.getMessage());
    }

    /** The CPU each thread spent since {@code before}. */
    ThreadCpu since(ThreadCpu before) {
        Map<String, Long> spent = new HashMap<>();
        ticks.forEach((thread, cpu) -> spent.put(thread, cpu - before.ticks.getOrDefault(thread, 0L)));
        Map<String, Long> waited = new HashMap<>();
        waitedNanos.forEach((thread, wait) -> waited.put(thread, wait - before.waitedNanos.getOrDefault(thread, 0L)));
        return new ThreadCpu(names, spent, waited);
    }

    /**
     * CPU seconds by kind of thread (names with their numbers left out, so that a pool's threads and the writers'
     * subtasks count together), the {@code top} ones, then the others, then what no live thread accounts for of
     * {@code processNanos}, the process's CPU in the same span; each with the seconds its threads waited for a core.
     */
    String describe(long processNanos, int top) {
        Map<String, Long> byKind = new TreeMap<>();
        Map<String, Long> waitedByKind = new TreeMap<>();
        ticks.forEach((thread, cpu) -> byKind.merge(kind(thread), cpu, Long::sum));
        waitedNanos.forEach((thread, wait) -> waitedByKind.merge(kind(thread), wait, Long::sum));
        List<Map.Entry<String, Long>> largest = byKind.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top).toList();
        long all = byKind.values().stream().mapToLong(Long::longValue).sum();
        long shown = largest.stream().mapToLong(Map.Entry::getValue).sum();
        return largest.stream()
                .map(kind -> String.format(Locale.ROOT, "'%s' %.1f (%.1f waiting)", kind.getKey(),
                        kind.getValue() / TICKS_A_SECOND, waitedByKind.get(kind.getKey()) / 1e9))
                .collect(Collectors.joining(", "))
                + String.format(Locale.ROOT, ", other threads %.1f, threads ended since %.1f; all threads waited %.1f "
                        + "for a core", (all - shown) / TICKS_A_SECOND,
                        Math.max(0, processNanos / 1e9 - all / TICKS_A_SECOND),
                        waitedByKind.values().stream().mapToLong(Long::longValue).sum() / 1e9);
    }

    /** The thread's name without its numbers: a pool's threads, or the writers' subtasks, are one kind. */
    private String kind(String thread) {
        return names.get(thread).replaceAll("[0-9]+", "N");
    }
}
