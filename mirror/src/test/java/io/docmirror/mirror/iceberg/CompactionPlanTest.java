package io.docmirror.mirror.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compaction policy: a compaction merges a tier of files of one size, so its work does not grow with the table,
 * and rewrites a file of 1 MiB or more alone once a tenth of its rows are deleted.
 */
class CompactionPlanTest {
    private static final long KB = 1 << 10;
    private static final long MB = 1 << 20;
    private static final int TIER_FILES = 10;

    private final Map<String, DeleteFile> vectors = new HashMap<>();
    private int names;

    @Test
    void tiersAreStepsOfTenFromOneMebibyte() {
        assertThat(CompactionPlan.tier(0)).isZero();
        assertThat(CompactionPlan.tier(MB - 1)).isZero();
        assertThat(CompactionPlan.tier(MB)).isEqualTo(1);
        assertThat(CompactionPlan.tier(10 * MB - 1)).isEqualTo(1);
        assertThat(CompactionPlan.tier(10 * MB)).isEqualTo(2);
        assertThat(CompactionPlan.tier(100 * MB)).isEqualTo(3);
        assertThat(CompactionPlan.tier(Long.MAX_VALUE)).isPositive();
    }

    @Test
    void theSmallFilesOfRecentBatchesMergeWithoutTheLargeFilesOfTheTable() {
        List<DataFile> files = new ArrayList<>();
        DataFile lasting = file(60 * MB, 1_000_000);
        DataFile middle = file(4 * MB, 60_000);
        files.add(lasting);
        files.add(middle);
        List<DataFile> recent = new ArrayList<>();
        for (int batch = 0; batch < TIER_FILES - 1; batch++) {
            recent.add(file(300 * KB, 5_000));
        }
        files.addAll(recent);

        assertThat(CompactionPlan.of(files, vectors, TIER_FILES).isDue()).as("nine small files").isFalse();

        recent.add(file(200 * KB, 3_000));
        files.add(recent.get(recent.size() - 1));
        CompactionPlan plan = CompactionPlan.of(files, vectors, TIER_FILES);
        assertThat(plan.rewrites()).containsExactly(recent);
    }

    @Test
    void aFullTierOfLargerFilesMergesIntoOne() {
        List<DataFile> files = new ArrayList<>();
        for (int merged = 0; merged < TIER_FILES; merged++) {
            files.add(file(3 * MB, 50_000));
        }
        DataFile small = file(100 * KB, 1_000);
        files.add(small);

        assertThat(CompactionPlan.of(files, vectors, TIER_FILES).rewrites()).singleElement()
                .satisfies(rewrite -> assertThat(rewrite).hasSize(TIER_FILES).doesNotContain(small));
    }

    @Test
    void aFileWithATenthOfItsRowsDeletedIsRewrittenAlone() {
        DataFile large = file(200 * MB, 1_000_000);
        DataFile other = file(50 * MB, 250_000);
        vectors.put(large.location(), vector(large, 99_999));
        vectors.put(other.location(), vector(other, 1_000));
        assertThat(CompactionPlan.of(List.of(large, other), vectors, TIER_FILES).isDue()).isFalse();

        vectors.put(large.location(), vector(large, 100_000));
        assertThat(CompactionPlan.of(List.of(large, other), vectors, TIER_FILES).rewrites())
                .containsExactly(List.of(large));
    }

    @Test
    void smallFilesShedTheirDeletedRowsWhenTheirTierMerges() {
        List<DataFile> files = new ArrayList<>();
        for (int batch = 0; batch < TIER_FILES - 1; batch++) {
            DataFile file = file(200 * KB, 2_000);
            vectors.put(file.location(), vector(file, 2_000));
            files.add(file);
        }
        // Each small file is all deleted, but rewriting one alone would cost a commit for little.
        assertThat(CompactionPlan.of(files, vectors, TIER_FILES).isDue()).isFalse();

        files.add(file(200 * KB, 2_000));
        assertThat(CompactionPlan.of(files, vectors, TIER_FILES).rewrites()).containsExactly(files);
    }

    @Test
    void filesOf128MebibytesOrMoreMergeWithNoOther() {
        List<DataFile> files = new ArrayList<>();
        for (int file = 0; file < TIER_FILES; file++) {
            files.add(file(130 * MB, 2_000_000));
        }
        assertThat(CompactionPlan.of(files, vectors, TIER_FILES).isDue()).isFalse();
    }

    private DataFile file(long bytes, long rows) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath("file:/warehouse/t/data/" + (names++) + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(bytes)
                .withRecordCount(rows)
                .build();
    }

    private DeleteFile vector(DataFile file, long deletedRows) {
        return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                .ofPositionDeletes()
                .withPath("file:/warehouse/t/data/" + (names++) + ".puffin")
                .withFormat(FileFormat.PUFFIN)
                .withFileSizeInBytes(1_000)
                .withRecordCount(deletedRows)
                .withReferencedDataFile(file.location())
                .withContentOffset(4)
                .withContentSizeInBytes(100)
                .build();
    }
}
