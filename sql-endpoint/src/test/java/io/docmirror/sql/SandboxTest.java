package io.docmirror.sql;

import io.docmirror.store.ContainerProperties;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A user can read the mirror's tables and nothing else; each escape attempt fails and the endpoint serves on. */
class SandboxTest {
    @TempDir
    static Path work;

    private static final String OUTSIDE = "/tmp/docmirror-sandbox-escape";

    private MirroredData data;
    private SqlEndpoint endpoint;
    private Connection connection;
    private Path dataFile;
    private byte[] dataFileBytes;

    @BeforeEach
    void open() throws Exception {
        data = new MirroredData(work.resolve("data-" + System.nanoTime()));
        data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        data.store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":5}");
        data.store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\",\"total\":7}");
        data.sync();
        dataFile = data.dataFile("orders", "orders");
        dataFileBytes = Files.readAllBytes(dataFile);
        endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
        connection = endpoint.connect();
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        endpoint.close();
        data.close();
    }

    static Stream<Arguments> escapes() {
        return Stream.of(
                Arguments.of("SELECT * FROM read_csv('/etc/passwd')", "file system operations are disabled"),
                Arguments.of("SELECT * FROM read_text('/etc/hostname')", "file system operations are disabled"),
                Arguments.of("SELECT * FROM read_parquet('/etc/passwd')", "file system operations are disabled"),
                Arguments.of("SELECT * FROM glob('/etc/*')", "file system operations are disabled"),
                Arguments.of("COPY orders TO '" + OUTSIDE + ".csv'", "read-only"),
                Arguments.of("COPY (SELECT 1 AS x) TO '$DATA_FILE' (FORMAT parquet)", "read-only"),
                Arguments.of("EXPORT DATABASE '" + OUTSIDE + "'", "read-only"),
                Arguments.of("INSTALL httpfs", "read-only"),
                Arguments.of("LOAD httpfs", "read-only"),
                Arguments.of("ATTACH '" + OUTSIDE + ".duckdb' AS other", "read-only"),
                Arguments.of("DETACH docmirror", "read-only"),
                Arguments.of("SET enable_external_access = true", "read-only"),
                Arguments.of("SET allowed_directories = ['/']", "read-only"),
                Arguments.of("SET lock_configuration = false", "read-only"),
                Arguments.of("SELECT set_config('memory_limit', '100GB')", "does not exist"),
                Arguments.of("PRAGMA enable_profiling", "read-only"),
                Arguments.of("CREATE TABLE stolen AS SELECT * FROM orders", "read-only"),
                Arguments.of("DROP VIEW orders", "read-only"),
                Arguments.of("INSERT INTO docmirror_columns VALUES ('t', 1, 'c', 'VARCHAR', 'value', '$.c')",
                        "read-only"),
                Arguments.of("SELECT 1; DROP VIEW orders", "read-only"),
                Arguments.of("SELECT 1 AS x; COPY orders TO '" + OUTSIDE + ".csv'", "read-only"),
                Arguments.of("CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's')", "read-only"),
                Arguments.of("CALL pragma_version()", "read-only"),
                Arguments.of("WITH x AS (DELETE FROM docmirror_columns RETURNING *) SELECT * FROM x", "may not change data"),
                Arguments.of("WITH x AS (INSERT INTO docmirror_columns VALUES ('t', 1, 'c', 'VARCHAR', 'value', '$.c', "
                        + "'orders', 't') RETURNING *) SELECT count(*) FROM x", "may not change data"),
                Arguments.of("WITH x AS (UPDATE docmirror_columns SET column_name = 'stolen' RETURNING *) "
                        + "SELECT * FROM x", "may not change data"),
                Arguments.of("SELECT * FROM (WITH x AS (DELETE FROM docmirror_errors RETURNING *) SELECT * FROM x)",
                        "may not change data"),
                Arguments.of("EXPLAIN WITH x AS (DELETE FROM docmirror_columns RETURNING *) SELECT * FROM x",
                        "may not change data"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("escapes")
    void escapeIsRefusedWithAClearErrorAndTheEndpointServesOn(String statement, String reason) throws Exception {
        String sql = statement.replace("$DATA_FILE", dataFile.toString());
        try (Statement s = connection.createStatement()) {
            assertThatThrownBy(() -> s.execute(sql))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining(reason);
        }
        assertThatThrownBy(() -> connection.prepareStatement(sql)).isInstanceOf(SQLException.class);

        assertThat(SqlEndpointTest.rows(connection, "SELECT count(*), sum(total)::BIGINT FROM orders"))
                .containsExactly(List.of(2L, 12L));
        assertThat(Files.readAllBytes(dataFile)).isEqualTo(dataFileBytes);
        assertThat(Path.of(OUTSIDE + ".csv")).doesNotExist();
        assertThat(Path.of(OUTSIDE)).doesNotExist();
        assertThat(Path.of(OUTSIDE + ".duckdb")).doesNotExist();
    }

    @Test
    void jdbcObjectsLeadBackOnlyToTheEndpoint() throws Exception {
        assertThatThrownBy(() -> connection.unwrap(DuckDBConnection.class))
                .hasMessageContaining("does not unwrap");
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM docmirror_columns"))
                    .hasMessageContaining("read-only");
            var result = statement.executeQuery("SELECT id FROM orders");
            assertThat(result.getStatement()).isSameAs(statement);
            assertThat(result.getStatement().getConnection()).isSameAs(connection);
            assertThat(connection.getMetaData().getConnection()).isSameAs(connection);
            assertThat(connection.getMetaData().getTables(null, null, "orders", null).getStatement()).isNull();
        }
        assertThatThrownBy(() -> connection.setAutoCommit(false)).hasMessageContaining("auto-commit");
    }
}
