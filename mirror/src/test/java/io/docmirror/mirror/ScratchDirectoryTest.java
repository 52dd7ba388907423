package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.iceberg.ContainerTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a writer killed mid-write left in its container's scratch directory (a data file DuckDB was writing, what it
 * spilled) goes when the next writer opens the tables, and a writer that closes leaves no scratch directory behind.
 */
class ScratchDirectoryTest {
    @TempDir
    Path mirror;

    @Test
    void theNextWriterRemovesWhatAKilledOneLeftAndAClosedOneLeavesNothing() throws IOException {
        Path scratch = MirrorLayout.containerDirectory(mirror, "orders").resolve(ScratchDirectory.NAME);
        Files.createDirectories(scratch.resolve("spill"));
        Path halfWritten = Files.writeString(scratch.resolve("data-4711.parquet"), "PAR1 and no footer");
        Path spilled = Files.writeString(scratch.resolve("spill").resolve("duckdb_temp_storage-0.tmp"), "spilled");

        try (ContainerTables tables = ContainerTables.open(mirror, "orders", FlattenerConfig.defaults("orders"),
                MirrorConfig.defaults())) {
            assertThat(halfWritten).doesNotExist();
            assertThat(spilled).doesNotExist();
            assertThat(tables.scratch().spill()).isEmptyDirectory();
        }
        assertThat(scratch).doesNotExist();
    }
}
