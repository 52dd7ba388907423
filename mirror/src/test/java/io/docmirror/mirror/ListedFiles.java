package io.docmirror.mirror;

import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/** The files a container's tables list, in any catalog and warehouse: where a test looks for them. */
public final class ListedFiles {
    private ListedFiles() {
    }

    /** The data files and deletion vectors the current snapshots of the container's tables list. */
    public static Set<String> of(CatalogSettings settings, String container) throws IOException {
        Set<String> files = new HashSet<>();
        try (CatalogReader reader = CatalogReader.open(settings)) {
            for (Table table : reader.pointers(container).tables(MirrorTables.namespace(container)).values()) {
                try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                    for (FileScanTask task : tasks) {
                        files.add(task.file().location());
                        task.deletes().stream().map(ContentFile::location).forEach(files::add);
                    }
                }
            }
        }
        return files;
    }
}
