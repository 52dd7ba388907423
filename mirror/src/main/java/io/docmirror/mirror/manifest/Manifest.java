package io.docmirror.mirror.manifest;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.docmirror.feed.ContinuationToken;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One committed version of a container's mirror: every table with its columns and files, the history and dead-letter
 * files, and the feed checkpoint the version covers. Readers take one manifest and see exactly that version; the
 * daemon writes files first and the manifest last, atomically (docs/architecture.md, "Files and the commit protocol").
 *
 * @param version counts commits from 1
 * @param committedAt when the version was committed, epoch milliseconds
 * @param analyticalTtl the container's analytical TTL in seconds: -1 keeps rows forever, n hides rows whose
 *     {@code _ts} is more than n seconds old
 * @param schemaFile the flattener's saved schema ({@code SchemaCodec}) that made this version's rows, relative to
 *     the container's mirror directory
 * @param tables the root table first, then child tables, parents before children
 * @param history every change as it came (raw documents), for history views and rebuilds
 * @param deadLetters documents that could not be mirrored, with the reason
 * @param lastEventTs the commit time (epoch milliseconds) of the newest change this version holds; 0 for none
 * @param conflicts values that did not fit their path's type or their table's column limit, and where they went
 * @param backfill a backfill under way, whose files readers do not see yet; {@code null} when there is none
 * @param historyFrom a change feed continuation token after which the history holds every change; {@code null} when
 *     it holds every change from the container's first. A backfill's history holds each document's version as of
 *     its snapshot only, so after a backfill this is the snapshot's position.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Manifest(long version, String container, long committedAt, long analyticalTtl, Checkpoint checkpoint,
        String schemaFile, List<TableEntry> tables, List<DataFile> history, List<DataFile> deadLetters,
        long lastEventTs, List<ConflictEntry> conflicts, BackfillProgress backfill, String historyFrom) {
    public Manifest {
        requireNonNull(container, "container is null");
        requireNonNull(checkpoint, "checkpoint is null");
        tables = List.copyOf(tables);
        history = List.copyOf(history);
        deadLetters = List.copyOf(deadLetters);
        conflicts = conflicts == null ? List.of() : List.copyOf(conflicts);
    }

    @JsonIgnore
    public TableEntry root() {
        return tables.get(0);
    }

    /** Every file this version references: its tables', its history's, its dead letters' and a backfill's. */
    @JsonIgnore
    public List<DataFile> dataFiles() {
        List<DataFile> files = new ArrayList<>();
        tables.forEach(table -> files.addAll(table.files()));
        files.addAll(history);
        files.addAll(deadLetters);
        if (backfill != null) {
            files.addAll(backfill.dataFiles());
        }
        return files;
    }

    /** Per feed range, the LSN after which the history holds every change ({@link #historyFrom()} decoded). */
    @JsonIgnore
    public Map<Integer, Long> historyFromPositions() {
        return historyFrom == null ? Map.of() : ContinuationToken.decode(historyFrom).positions();
    }

    /** This version with other files for its tables (the same tables, in the same order). */
    public Manifest withTables(List<TableEntry> replacement) {
        return new Manifest(version, container, committedAt, analyticalTtl, checkpoint, schemaFile, replacement,
                history, deadLetters, lastEventTs, conflicts, backfill, historyFrom);
    }

    public Optional<TableEntry> findTable(String name) {
        return tables.stream().filter(table -> table.name().equals(name)).findFirst();
    }
}
