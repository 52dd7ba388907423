package io.docmirror.sql.flight;

import io.docmirror.sql.ArrowExport;
import io.docmirror.sql.SqlEndpoint;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.UpdateDeleteRules;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt1Vector;
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

import static io.docmirror.layout.TableView.identifier;

/**
 * The catalog as Flight SQL's metadata commands want it (catalogs, schemas, tables with their Arrow schemas, table
 * types, keys), read from DuckDB's information schema and the docmirror catalog through the endpoint, so a client
 * lists exactly the relations its queries can read: the mirror's tables and the docmirror catalog views.
 *
 * <p>Name patterns and names match ignoring case, as DuckDB matches identifiers (no two relations of the catalog
 * differ only in case: {@code SqlNames}), so a tool that upper-cases names before it asks (sqlline's
 * {@code !columns orders}, through a JDBC driver that assumes upper-case storage) still finds {@code orders}.
 *
 * <p>Each mirrored table is a view in DuckDB (over its copy in DuckDB's storage) but is listed with table type
 * {@code TABLE}: to a client it is the table of a container's current rows, not a query over other tables, and tools
 * that list only tables (most BI tools by default) would otherwise see no data at all. The histories and the
 * docmirror catalog views stay {@code VIEW}. The mirrored tables have keys, though DuckDB declares none on views:
 * a root table's {@code (id, _pk)}, a child table's {@code (_id, _pk, _row)}; and a child table's rows point to
 * their parent's, {@code (_id, _pk)} to a root's {@code (id, _pk)} and {@code (_id, _pk, _parent_row)} to a child
 * table's {@code (_id, _pk, _row)}. Deleting a document deletes its child rows: the delete rule is CASCADE.
 */
final class CatalogMetadata {
    /** Every mirrored table with its parent's SQL name and whether that parent is a root table. */
    private static final String RELATIONS = "WITH relations AS (SELECT t.sql_name, t.parent_table IS NULL AS root, "
            + "p.sql_name AS parent, p.parent_table IS NULL AS parent_is_root FROM docmirror_tables t "
            + "LEFT JOIN docmirror_tables p ON p.container = t.container AND p.table_name = t.parent_table), "
            + "primary_key_columns(root, column_name, key_sequence) AS (VALUES (true, 'id', 1), "
            + "(true, '_pk', 2), (false, '_id', 1), (false, '_pk', 2), (false, '_row', 3)), "
            + "foreign_key_columns(parent_is_root, fk_column, pk_column, key_sequence) AS (VALUES "
            + "(true, '_id', 'id', 1), (true, '_pk', '_pk', 2), (false, '_id', '_id', 1), (false, '_pk', '_pk', 2), "
            + "(false, '_parent_row', '_row', 3)) ";
    private static final String IN_THIS_CATALOG = "lower(coalesce(?, current_database())) = lower(current_database()) "
            + "AND lower(coalesce(?, 'main')) = 'main' ";
    private static final String FOREIGN_KEYS = RELATIONS + "SELECT current_database(), 'main', r.parent, f.pk_column, "
            + "current_database(), 'main', r.sql_name, f.fk_column, f.key_sequence, "
            + "r.sql_name || '_' || r.parent || '_fkey', r.parent || '_pkey', "
            + UpdateDeleteRules.NO_ACTION_VALUE + ", " + UpdateDeleteRules.CASCADE_VALUE + " "
            + "FROM relations r JOIN foreign_key_columns f ON f.parent_is_root = r.parent_is_root "
            + "WHERE r.parent IS NOT NULL ";

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
                        + "WHERE catalog_name = current_database() AND lower(catalog_name) = lower(coalesce(?, catalog_name)) "
                        + "AND schema_name ILIKE coalesce(?, '%') ESCAPE '\\' ORDER BY schema_name",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null));
    }

    VectorSchemaRoot tableTypes() throws SQLException {
        return rows(Schemas.GET_TABLE_TYPES_SCHEMA, List.of(new Object[] {"TABLE"}, new Object[] {"VIEW"}));
    }

    /** Tables and views; with {@code include_schema}, each with its Arrow schema (what JDBC's getColumns reads). */
    VectorSchemaRoot tables(CommandGetTables command) throws SQLException {
        List<Object[]> tables = query("SELECT t.table_catalog, t.table_schema, t.table_name, "
                        + "CASE WHEN m.sql_name IS NOT NULL OR t.table_type = 'BASE TABLE' THEN 'TABLE' "
                        + "ELSE t.table_type END AS table_type "
                        + "FROM information_schema.tables t LEFT JOIN (SELECT sql_name FROM docmirror_tables) m "
                        + "ON t.table_schema = 'main' AND m.sql_name = t.table_name "
                        + "WHERE t.table_catalog = current_database() "
                        + "AND lower(t.table_catalog) = lower(coalesce(?, t.table_catalog)) "
                        + "AND t.table_schema ILIKE coalesce(?, '%') ESCAPE '\\' "
                        + "AND t.table_name ILIKE coalesce(?, '%') ESCAPE '\\' "
                        + "ORDER BY table_type, t.table_schema, t.table_name",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null,
                command.hasTableNameFilterPattern() ? command.getTableNameFilterPattern() : null);
        if (!command.getTableTypesList().isEmpty()) {
            tables.removeIf(table -> command.getTableTypesList().stream()
                    .noneMatch(type -> type.equalsIgnoreCase((String) table[3])));
        }
        if (!command.getIncludeSchema()) {
            return rows(Schemas.GET_TABLES_SCHEMA_NO_SCHEMA, tables);
        }
        List<Object[]> withSchemas = new ArrayList<>();
        try (Connection connection = endpoint.connect(); Statement statement = connection.createStatement()) {
            for (Object[] table : tables) {
                Object[] row = Arrays.copyOf(table, 5);
                row[4] = arrowSchema(statement, (String) table[0], (String) table[1], (String) table[2])
                        .serializeAsMessage();
                withSchemas.add(row);
            }
        }
        return rows(Schemas.GET_TABLES_SCHEMA, withSchemas);
    }

    /** The primary key of a mirrored table: none for the histories and the catalog's own relations. */
    VectorSchemaRoot primaryKeys(CommandGetPrimaryKeys command) throws SQLException {
        return rows(Schemas.GET_PRIMARY_KEYS_SCHEMA, query(RELATIONS + "SELECT current_database(), 'main', "
                        + "r.sql_name, k.column_name, k.key_sequence, r.sql_name || '_pkey' FROM relations r "
                        + "JOIN primary_key_columns k ON k.root = r.root WHERE " + IN_THIS_CATALOG
                        + "AND lower(r.sql_name) = lower(?) ORDER BY k.key_sequence",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchema() ? command.getDbSchema() : null, command.getTable()));
    }

    /** The key by which a child table's rows point to its parent table's, ordered as JDBC's getImportedKeys. */
    VectorSchemaRoot importedKeys(CommandGetImportedKeys command) throws SQLException {
        return rows(Schemas.GET_IMPORTED_KEYS_SCHEMA, query(FOREIGN_KEYS + "AND " + IN_THIS_CATALOG
                        + "AND lower(r.sql_name) = lower(?) ORDER BY r.parent, f.key_sequence",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchema() ? command.getDbSchema() : null, command.getTable()));
    }

    /** The keys by which child tables' rows point to this table's, ordered as JDBC's getExportedKeys. */
    VectorSchemaRoot exportedKeys(CommandGetExportedKeys command) throws SQLException {
        return rows(Schemas.GET_EXPORTED_KEYS_SCHEMA, query(FOREIGN_KEYS + "AND " + IN_THIS_CATALOG
                        + "AND lower(r.parent) = lower(?) ORDER BY r.sql_name, f.key_sequence",
                command.hasCatalog() ? command.getCatalog() : null,
                command.hasDbSchema() ? command.getDbSchema() : null, command.getTable()));
    }

    VectorSchemaRoot crossReference(CommandGetCrossReference command) throws SQLException {
        return rows(Schemas.GET_CROSS_REFERENCE_SCHEMA, query(FOREIGN_KEYS + "AND " + IN_THIS_CATALOG
                        + "AND " + IN_THIS_CATALOG + "AND lower(r.parent) = lower(?) AND lower(r.sql_name) = lower(?) "
                        + "ORDER BY r.sql_name, f.key_sequence",
                command.hasPkCatalog() ? command.getPkCatalog() : null,
                command.hasPkDbSchema() ? command.getPkDbSchema() : null,
                command.hasFkCatalog() ? command.getFkCatalog() : null,
                command.hasFkDbSchema() ? command.getFkDbSchema() : null,
                command.getPkTable(), command.getFkTable()));
    }

    private Schema arrowSchema(Statement statement, String catalog, String schema, String table) throws SQLException {
        try (ResultSet empty = statement.executeQuery("SELECT * FROM " + identifier(schema) + "."
                + identifier(table) + " LIMIT 0");
                ArrowReader reader = ArrowExport.of(empty, allocator, 1)) {
            return ColumnMetadata.ofTable(reader.getVectorSchemaRoot().getSchema(), empty.getMetaData(), catalog,
                    schema, table);
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

    /**
     * {@code rows} in a new root of {@code schema}: text into its string columns, numbers (read as text) into its
     * integer ones, bytes into its binary ones.
     */
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
                } else if (root.getVector(column) instanceof IntVector integer) {
                    integer.setSafe(row, Integer.parseInt((String) value));
                } else if (root.getVector(column) instanceof UInt1Vector small) {
                    small.setSafe(row, Integer.parseInt((String) value));
                } else {
                    ((VarBinaryVector) root.getVector(column)).setSafe(row, (byte[]) value);
                }
            }
        }
        root.setRowCount(rows.size());
        return root;
    }
}
