package io.docmirror.sql;

import io.docmirror.mirror.manifest.ColumnEntry;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.mirror.manifest.ViewDefinitions;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** A container mirrored in the manifest format: its newest manifest version, read through {@link ViewDefinitions}. */
final class ManifestContainer implements MirroredContainer {
    private final Manifest manifest;
    private final ViewDefinitions views;

    ManifestContainer(Manifest manifest, Path directory) {
        this.manifest = manifest;
        this.views = new ViewDefinitions(manifest, directory, OptionalLong.empty());
    }

    @Override
    public String name() {
        return manifest.container();
    }

    @Override
    public long version() {
        return manifest.version();
    }

    @Override
    public long committedAt() {
        return manifest.committedAt();
    }

    @Override
    public long lastEventTs() {
        return manifest.lastEventTs();
    }

    @Override
    public Map<String, Long> positions() {
        return MirroredContainer.positions(manifest.checkpoint());
    }

    @Override
    public List<Table> tables() {
        List<Table> tables = new ArrayList<>();
        for (TableEntry table : manifest.tables()) {
            List<Column> columns = new ArrayList<>();
            for (ColumnEntry column : table.columns()) {
                columns.add(new Column(column.name(), ViewDefinitions.sqlType(column), column.role(),
                        column.jsonPath()));
            }
            tables.add(new Table(table.name(), table.parent(), table.jsonPath(), columns, table.files().size()));
        }
        return tables;
    }

    @Override
    public List<Conflict> conflicts() {
        return manifest.conflicts().stream().map(conflict -> new Conflict(conflict.table(), conflict.jsonPath(),
                conflict.keptType(), conflict.seenType(), conflict.resolution(), conflict.count(),
                conflict.sampleIds())).toList();
    }

    @Override
    public void prepare(Connection connection) {
        // The views read the manifest's files as they are.
    }

    @Override
    public String currentState(Table table, String rootRelation) {
        return views.currentState(manifest.findTable(table.name()).orElseThrow(), rootRelation);
    }

    @Override
    public String history() {
        return views.history();
    }

    @Override
    public String deadLetters() {
        return views.deadLetters();
    }
}
