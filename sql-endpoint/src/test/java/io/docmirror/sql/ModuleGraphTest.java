package io.docmirror.sql;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint depends on the Iceberg library and the module that names the mirror's layout, never on the mirror
 * daemon, the change feed, the operational store or its server, Kafka, RocksDB or Hadoop. Its tests do have the mirror (to mirror
 * something to serve), so this reads the endpoint's runtime class path (its classes and its runtime dependencies, as
 * Maven resolves them for a deployment) from the file the build writes, and looks there.
 */
class ModuleGraphTest {
    /** Packages (as class-file paths) of what the endpoint must not bring, with what they are. */
    private static final Map<String, String> FORBIDDEN = Map.of(
            "io/docmirror/mirror/", "the mirror daemon",
            "io/docmirror/feed/", "the change feed",
            "io/docmirror/store/", "the operational store and its server",
            "org/apache/kafka/", "Kafka",
            "org/rocksdb/", "RocksDB",
            "org/apache/hadoop/", "Hadoop");

    private static List<Path> runtimeClassPath;

    @BeforeAll
    static void readTheRuntimeClassPath() throws IOException {
        String file = System.getProperty("docmirror.runtime-classpath.file");
        String classes = System.getProperty("docmirror.classes");
        assertThat(file).as("set by the module's pom (surefire's system properties)").isNotNull();
        runtimeClassPath = new ArrayList<>();
        runtimeClassPath.add(Path.of(classes));
        for (String entry : Files.readString(Path.of(file)).trim().split(java.io.File.pathSeparator)) {
            if (!entry.isBlank()) {
                runtimeClassPath.add(Path.of(entry));
            }
        }
    }

    @Test
    void noClassOnTheRuntimeClassPathBelongsToTheMirrorItsSourcesOrTheirLibraries() throws IOException {
        Map<String, String> found = new TreeMap<>();
        for (Path entry : runtimeClassPath) {
            for (String name : classFiles(entry)) {
                FORBIDDEN.forEach((prefix, what) -> {
                    if (name.startsWith(prefix)) {
                        found.putIfAbsent(what, name + " in " + entry.getFileName());
                    }
                });
            }
        }
        assertThat(found).as("%s on the endpoint's runtime class path", FORBIDDEN.values()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "org.apache.hadoop.conf.Configuration",
            "org.apache.kafka.clients.consumer.KafkaConsumer",
            "org.rocksdb.RocksDB",
            "io.docmirror.mirror.FeedMirror",
            "io.docmirror.mirror.iceberg.ContainerTables",
            "io.docmirror.feed.ChangeFeedReader",
            "io.docmirror.store.EmbeddedStore",
            "io.docmirror.store.server.StoreHttpServer"})
    void theEndpointDoesNotSee(String className) throws IOException {
        assertThat(load(className)).isEmpty();
    }

    /** The check above would pass on an empty class path: what the endpoint does need is there. */
    @ParameterizedTest
    @ValueSource(strings = {
            "io.docmirror.sql.SqlEndpoint",
            "io.docmirror.layout.ContainerSnapshot",
            "org.apache.iceberg.Table",
            "org.duckdb.DuckDBDriver"})
    void theEndpointSees(String className) throws IOException {
        assertThat(load(className)).isPresent();
    }

    /** The class as a loader of the runtime class path alone (over the JDK's platform classes) finds it. */
    private static Optional<Class<?>> load(String className) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (Path entry : runtimeClassPath) {
            urls.add(entry.toUri().toURL());
        }
        try (URLClassLoader endpoint = new URLClassLoader(urls.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            return Optional.of(Class.forName(className, false, endpoint));
        } catch (ClassNotFoundException e) {
            return Optional.empty();
        }
    }

    private static List<String> classFiles(Path entry) throws IOException {
        if (Files.isDirectory(entry)) {
            try (Stream<Path> files = Files.walk(entry)) {
                return files.filter(file -> file.toString().endsWith(".class"))
                        .map(file -> entry.relativize(file).toString().replace(java.io.File.separatorChar, '/'))
                        .toList();
            }
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            return jar.stream().map(java.util.zip.ZipEntry::getName).filter(name -> name.endsWith(".class"))
                    .map(name -> name.startsWith("META-INF/versions/") ? name.replaceFirst("META-INF/versions/\\d+/", "")
                            : name)
                    .toList();
        }
    }
}
