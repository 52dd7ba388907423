package io.docmirror.sql.flight;

import io.docmirror.sql.ArrowExport;
import io.docmirror.sql.SqlEndpoint;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The catalog as Flight SQL's metadata commands want it (catalogs, schemas, tables with their Arrow schemas, table
 * types), read from DuckDB's information schema through the endpoint, so a client lists exactly the relations its
 * queries can read: the mirror's tables and the docmirror catalog views.
 */
final class CatalogMetadata {
    private final SqlEndpoint endpoint;
    private final BufferAllocator allocator;

    CatalogMetadata(SqlEndpoint endpoint, BufferAllocator allocator) {
        this.endpoint = endpoint;
        this.allocator = allocator;
    }

    VectorSchemaRoot catalogs() throws SQLException {
        return rows(Schemas.GET_CATALOGS_SCHEMA, query("SELECT current_database()"));
    }

    VectorSchemaRoot schemas(CommandGetDbSchemas command) throws SQLException {
        return rows(Schemas.GET_SCHEMAS_SCHEMA, query("SELECT catalog_name, schema_name FROM information_schema.schemata "
                        + "WHERE catalog_name = current_database() AND catalog_name = coalesce(?, catalog_name) "
                        + "AND schema_name LIKE coalesce(?, '%') ESCAPE '\\' ORDER BY schema_name",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null));
    }

    VectorSchemaRoot tableTypes() throws SQLException {
        return rows(Schemas.GET_TABLE_TYPES_SCHEMA, List.of(new Object[] {"TABLE"}, new Object[] {"VIEW"}));
    }

    /** Tables and views; with {@code include_schema}, each with its Arrow schema (what JDBC's getColumns reads). */
    VectorSchemaRoot tables(CommandGetTables command) throws SQLException {
        List<Object[]> tables = query("SELECT table_catalog, table_schema, table_name, "
                        + "CASE table_type WHEN 'BASE TABLE' THEN 'TABLE' ELSE table_type END AS table_type "
                        + "FROM information_schema.tables WHERE table_catalog = current_database() "
                        + "AND table_catalog = coalesce(?, table_catalog) "
                        + "AND table_schema LIKE coalesce(?, '%') ESCAPE '\\' "
                        + "AND table_name LIKE coalesce(?, '%') ESCAPE '\\' ORDER BY table_type, table_schema, table_name",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null,
                command.hasTableNameFilterPattern() ? command.getTableNameFilterPattern() : null);
        if (!command.getTableTypesList().isEmpty()) {
            tables.removeIf(table -> !command.getTableTypesList().contains((String) table[3]));
        }
        if (!command.getIncludeSchema()) {
            return rows(Schemas.GET_TABLES_SCHEMA_NO_SCHEMA, tables);
        }
        List<Object[]> withSchemas = new ArrayList<>();
        try (Connection connection = endpoint.connect(); Statement statement = connection.createStatement()) {
            for (Object[] table : tables) {
                Object[] row = Arrays.copyOf(table, 5);
                row[4] = arrowSchema(statement, (String) table[1], (String) table[2]).serializeAsMessage();
                withSchemas.add(row);
            }
        }
        return rows(Schemas.GET_TABLES_SCHEMA, withSchemas);
    }

    private Schema arrowSchema(Statement statement, String schema, String table) throws SQLException {
        try (ResultSet empty = statement.executeQuery("SELECT * FROM " + identifier(schema) + "."
                + identifier(table) + " LIMIT 0");
                ArrowReader reader = ArrowExport.of(empty, allocator, 1)) {
            return reader.getVectorSchemaRoot().getSchema();
        } catch (IOException e) {
            throw new SQLException("Cannot read the Arrow schema of table " + table + ": " + e.getMessage(), e);
        }
    }

    private List<Object[]> query(String sql, String... parameters) throws SQLException {
        try (Connection connection = endpoint.connect();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int index = 0; index < parameters.length; index++) {
                statement.setString(index + 1, parameters[index]);
            }
            List<Object[]> rows = new ArrayList<>();
            try (ResultSet result = statement.executeQuery()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    Object[] row = new Object[columns];
                    for (int column = 0; column < columns; column++) {
                        row[column] = result.getString(column + 1);
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    /** {@code rows} in a new root of {@code schema}: text into its string columns, bytes into its binary ones. */
    private VectorSchemaRoot rows(Schema schema, List<Object[]> rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.allocateNew();
        for (int row = 0; row < rows.size(); row++) {
            for (int column = 0; column < schema.getFields().size(); column++) {
                Object value = rows.get(row)[column];
                if (value == null) {
                    continue;
                }
                if (root.getVector(column) instanceof VarCharVector text) {
                    text.setSafe(row, ((String) value).getBytes(StandardCharsets.UTF_8));
                } else {
                    ((VarBinaryVector) root.getVector(column)).setSafe(row, (byte[]) value);
                }
            }
        }
        root.setRowCount(rows.size());
        return root;
    }

    private static String identifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
