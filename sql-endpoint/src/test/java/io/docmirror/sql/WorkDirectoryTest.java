package io.docmirror.sql;

import io.docmirror.store.ContainerProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The endpoint's temporary directory in java.io.tmpdir goes with it, and with the process that made it. */
class WorkDirectoryTest {
    private static final Path TEMPORARY = Path.of(System.getProperty("java.io.tmpdir"));

    @TempDir
    Path work;

    private MirroredData data;

    @BeforeEach
    void mirrorAnOrder() {
        data = new MirroredData(work);
        data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        data.store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        data.sync();
    }

    @AfterEach
    void close() {
        data.close();
    }

    @Test
    void theDirectoryGoesWhenTheEndpointCloses() throws Exception {
        Set<Path> before = ownDirectories();
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
                Connection connection = endpoint.connect()) {
            assertThat(SqlEndpointTest.rows(connection, "SELECT count(*) FROM orders")).hasSize(1);
            assertThat(ownDirectories()).hasSize(before.size() + 1);
        }
        assertThat(ownDirectories()).isEqualTo(before);
    }

    @Test
    void anEndpointClosesCleanlyWhenItsDirectoryWentFirst() throws Exception {
        Set<Path> before = ownDirectories();
        SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
        try (Connection connection = endpoint.connect()) {
            assertThat(SqlEndpointTest.rows(connection, "SELECT count(*) FROM orders")).hasSize(1);
        }
        // What the directory's shutdown hook does when the JVM stops while the endpoint is still closing (Ctrl-C).
        Set<Path> own = ownDirectories();
        own.removeAll(before);
        for (Path directory : own) {
            removeTree(directory);
        }

        endpoint.close();

        assertThat(ownDirectories()).isEqualTo(before);
    }

    @Test
    void directoriesOfProcessesThatNoLongerRunAreRemovedByTheNextEndpoint() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor()).isZero();
        Path leftBehind = TEMPORARY.resolve("docmirror-sql-" + ended.pid() + "-42");
        Path stillUsed = TEMPORARY.resolve("docmirror-sql-" + ProcessHandle.current().pid() + "-42");
        Path notOurs = TEMPORARY.resolve("docmirror-sql-" + ended.pid() + "-other");
        try {
            Files.createDirectories(leftBehind.resolve("spill"));
            Files.writeString(leftBehind.resolve("copy.duckdb"), "copy");
            Files.createDirectories(stillUsed);
            Files.createDirectories(notOurs);

            try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults())) {
                assertThat(endpoint.versions()).containsKey("orders");
            }

            assertThat(leftBehind).doesNotExist();
            assertThat(stillUsed).as("this process still runs").isDirectory();
            assertThat(notOurs).as("not a name an endpoint gives").isDirectory();
        } finally {
            for (Path directory : new Path[] {leftBehind, stillUsed, notOurs}) {
                removeTree(directory);
            }
        }
    }

    private static Set<Path> ownDirectories() throws IOException {
        String prefix = "docmirror-sql-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> entries = Files.list(TEMPORARY)) {
            return entries.filter(entry -> entry.getFileName().toString().startsWith(prefix))
                    .collect(Collectors.toSet());
        }
    }

    private static void removeTree(Path root) throws IOException {
        WorkDirectory.removeTree(root);
    }
}
