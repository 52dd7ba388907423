package io.docmirror.sql;

import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;
import io.docmirror.store.ContainerProperties;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcInfoCode;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The network endpoint through ADBC's Java Flight SQL driver: what ADBC tools and dataframe libraries ask. */
class AdbcClientTest {
    @TempDir
    Path work;

    private MirroredData data;
    private SqlEndpoint endpoint;
    private FlightSqlServer server;
    private BufferAllocator allocator;
    private AdbcDatabase database;
    private AdbcConnection connection;

    @BeforeEach
    void connectToServedOrders() throws Exception {
        data = new MirroredData(work);
        data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        data.store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":12.345678901234567890123,"items":[{"sku":"A","qty":1}]}""");
        data.sync();
        endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
        server = FlightSqlServer.start(endpoint, FlightConfig.defaults().withListener("127.0.0.1", 0)
                .withPassword("s3cret-for-tests-only-0123456789ab"));
        allocator = new RootAllocator();
        Map<String, Object> parameters = new HashMap<>();
        AdbcDriver.PARAM_URI.set(parameters, "grpc+tcp://127.0.0.1:" + server.port());
        AdbcDriver.PARAM_USERNAME.set(parameters, "docmirror");
        AdbcDriver.PARAM_PASSWORD.set(parameters, "s3cret-for-tests-only-0123456789ab");
        database = new FlightSqlDriver(allocator).open(parameters);
        connection = database.connect();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        database.close();
        server.close();
        awaitBuffersReleased();
        allocator.close();
        endpoint.close();
        data.close();
    }

    /**
     * Flight's client frees the buffers of a stream it closed on gRPC's threads, which may run after close returns
     * (CI once closed the allocator 269,312 bytes early). Waiting for them keeps the allocator's leak check, which
     * still fails if a buffer is never freed.
     */
    private void awaitBuffersReleased() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (allocator.getAllocatedMemory() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.out.println("client allocator holds " + allocator.getAllocatedMemory() + " bytes at close");
    }

    /**
     * ADBC's Java driver (0.18) asks the server for its name and version (SqlInfo 0 and 1) but clears the rows it
     * receives before it reads them (GetInfoMetadataReader.processRootFromStream), so only its own entries reach
     * the caller; the call must still succeed, which it did not when a server failed a GetSqlInfo.
     */
    @Test
    void getInfoAnswers() throws Exception {
        Map<Long, String> info = new TreeMap<>();
        try (ArrowReader reader = connection.getInfo()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            while (reader.loadNextBatch()) {
                UInt4Vector names = (UInt4Vector) root.getVector(0);
                for (int row = 0; row < root.getRowCount(); row++) {
                    info.put(names.getValueAsLong(row), String.valueOf(root.getVector(1).getObject(row)));
                }
            }
        }
        assertThat(info).containsEntry((long) AdbcInfoCode.DRIVER_NAME.getValue(), "ADBC Flight SQL Driver");
    }

    @Test
    void getObjectsListsTheMirroredTablesWithTheirColumns() throws Exception {
        Map<String, String> tableTypes = new TreeMap<>();
        List<String> orderColumns = new ArrayList<>();
        try (ArrowReader reader = connection.getObjects(AdbcConnection.GetObjectsDepth.ALL, null, null, null, null,
                null)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            while (reader.loadNextBatch()) {
                for (int row = 0; row < root.getRowCount(); row++) {
                    for (Object schema : (List<?>) root.getVector("catalog_db_schemas").getObject(row)) {
                        for (Object table : (List<?>) ((Map<?, ?>) schema).get("db_schema_tables")) {
                            Map<?, ?> described = (Map<?, ?>) table;
                            String name = described.get("table_name").toString();
                            tableTypes.put(name, described.get("table_type").toString());
                            if (name.equals("orders")) {
                                for (Object column : (List<?>) described.get("table_columns")) {
                                    orderColumns.add(((Map<?, ?>) column).get("column_name").toString());
                                }
                            }
                        }
                    }
                }
            }
        }
        assertThat(tableTypes).containsEntry("orders", "TABLE").containsEntry("orders__items", "TABLE")
                .containsEntry("orders_history", "VIEW");
        assertThat(orderColumns).contains("id", "_pk", "total");
    }

    @Test
    void aStatementTellsItsSchemaAndReadsExactDecimals() throws Exception {
        try (AdbcStatement statement = connection.createStatement()) {
            statement.setSqlQuery("SELECT id, total FROM orders");
            Schema schema = statement.executeSchema();
            assertThat(schema.getFields()).extracting(Field::getName).containsExactly("id", "total");
            assertThat(schema.getFields().get(1).getType()).isEqualTo(new ArrowType.Decimal(38, 21, 128));

            try (AdbcStatement.QueryResult result = statement.executeQuery();
                    ArrowReader reader = result.getReader()) {
                assertThat(reader.loadNextBatch()).isTrue();
                assertThat(reader.getVectorSchemaRoot().getVector("total").getObject(0).toString())
                        .isEqualTo("12.345678901234567890123");
                assertThat(reader.loadNextBatch()).isFalse();
            }
        }
    }
}
