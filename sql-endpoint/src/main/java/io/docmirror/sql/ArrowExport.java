package io.docmirror.sql;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The rows of an endpoint query as Arrow record batches, exported by DuckDB itself through the Arrow C data
 * interface (no row-by-row conversion): what the Arrow Flight SQL endpoint sends.
 */
public final class ArrowExport {
    private ArrowExport() {
    }

    /**
     * Starts reading {@code result}, a result set of this endpoint's JDBC objects, as Arrow batches. The reader
     * consumes the result set's rows; close the reader before the result set.
     *
     * @param batchRows rows per record batch (DuckDB rounds to whole vectors of 2048)
     */
    public static ArrowReader of(ResultSet result, BufferAllocator allocator, long batchRows) throws SQLException {
        DuckDBResultSet duckResult = Shielded.target(result).unwrap(DuckDBResultSet.class);
        return (ArrowReader) duckResult.arrowExportStream(allocator, batchRows);
    }
}
