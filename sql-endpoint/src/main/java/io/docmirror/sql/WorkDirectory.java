package io.docmirror.sql;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The endpoint's temporary directory ({@code docmirror-sql-<pid>-<n>} in {@code java.io.tmpdir}), where DuckDB's
 * spill files live, and the endpoint's copy of the tables when it cannot keep the one in the mirror directory. It goes when the endpoint closes; when the process ends
 * without closing it (Ctrl-C, a signal) a shutdown hook removes it; and when the process could not even do that
 * (SIGKILL, a crash), the next endpoint to open removes the directories of processes that no longer run.
 */
final class WorkDirectory {
    private static final Logger log = LoggerFactory.getLogger(WorkDirectory.class);
    private static final String PREFIX = "docmirror-sql-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-\\d+");

    private final Path path;
    private final Thread removeAtExit;

    private WorkDirectory(Path path) {
        this.path = path;
        this.removeAtExit = new Thread(() -> removeTreeOrLog(path), "docmirror-sql-cleanup");
    }

    /** Removes what ended processes left behind, then creates this process's new directory. */
    static WorkDirectory create() {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        removeLeftBehind(temporary);
        try {
            WorkDirectory directory = new WorkDirectory(Files.createTempDirectory(temporary,
                    PREFIX + ProcessHandle.current().pid() + "-"));
            Runtime.getRuntime().addShutdownHook(directory.removeAtExit);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary directory for the SQL catalog in " + temporary,
                    e);
        }
    }

    Path path() {
        return path;
    }

    /** Removes the directory and what is in it (the spill files, a copy of the endpoint's own), and no longer at exit. */
    void remove() {
        try {
            removeTree(path);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove the SQL endpoint's directory " + path, e);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(removeAtExit);
        } catch (IllegalStateException shuttingDown) {
            // Closed by another shutdown hook: this one finds nothing left to remove.
            log.debug("Closing while the JVM shuts down: {}", shuttingDown.getMessage());
        }
    }

    private static void removeLeftBehind(Path temporary) {
        List<Path> candidates;
        try (Stream<Path> entries = Files.list(temporary)) {
            candidates = entries.filter(entry -> NAME.matcher(entry.getFileName().toString()).matches()).toList();
        } catch (IOException e) {
            log.warn("Cannot look for SQL catalog directories left behind in {}", temporary, e);
            return;
        }
        for (Path candidate : candidates) {
            Matcher name = NAME.matcher(candidate.getFileName().toString());
            if (name.matches() && !running(name.group(1))) {
                log.info("Removing {}, left behind by process {} that no longer runs", candidate, name.group(1));
                removeTreeOrLog(candidate);
            }
        }
    }

    private static boolean running(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
            // Not a process id we could have written: not ours to remove.
            return true;
        }
    }

    /** Removes {@code root} and everything under it, logging what cannot be removed (at exit, or left behind). */
    private static void removeTreeOrLog(Path root) {
        try {
            removeTree(root);
        } catch (IOException e) {
            log.warn("Cannot remove the SQL catalog directory {}", root, e);
        }
    }

    /**
     * Removes {@code root} and everything under it. A tree removed meanwhile is no failure: when the JVM stops, the
     * work directory's shutdown hook may remove it while the endpoint closes.
     */
    static void removeTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(file);
            }
        } catch (NoSuchFileException gone) {
            log.debug("{} is removed already", gone.getFile());
        } catch (UncheckedIOException e) {
            // How the walk reports a folder that vanished under it.
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e.getCause();
            }
            log.debug("{} is removed already", root);
        }
    }
}
