package io.docmirror.mirror.iceberg;

import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One table's operations inside a {@link CatalogBatch}: a commit stages the table's next metadata (writing its file,
 * for a catalog whose commit moves a pointer to it), and the catalog takes it only when the whole batch commits.
 * Until then, readers see the table as it was, and this table sees its staged metadata (so a batch may change a
 * table more than once).
 */
final class StagedTableOperations implements TableOperations {
    /** JdbcCatalog's metadata file names: {@code 00042-<uuid>.metadata.json}. */
    private static final Pattern VERSION = Pattern.compile("(\\d+)-[^/]*\\.metadata\\.json$");

    private final TableIdentifier identifier;
    private final FileIO io;
    /** The metadata the catalog points at when the batch began; null for a table the batch creates. */
    private final String baseLocation;
    private final TableMetadata base;
    /** For a table the batch creates, its first metadata until it is staged: where the table's files go. */
    private final TableMetadata creating;
    private final boolean writesMetadata;
    private TableMetadata staged;
    private String stagedLocation;

    /** The operations of an existing table, whose metadata the catalog points at in {@code baseLocation}. */
    static StagedTableOperations existing(TableIdentifier identifier, FileIO io, String baseLocation) {
        return new StagedTableOperations(identifier, io, baseLocation, TableMetadataParser.read(io, baseLocation),
                null, true);
    }

    /** The operations of a table the batch creates with {@code metadata}. */
    static StagedTableOperations creating(TableIdentifier identifier, FileIO io, TableMetadata metadata) {
        return new StagedTableOperations(identifier, io, null, null, metadata, true);
    }

    /**
     * The operations of an existing table whose catalog takes changes as metadata updates (a REST catalog writes the
     * metadata files itself): nothing is written when a change is staged.
     */
    static StagedTableOperations updating(TableIdentifier identifier, FileIO io, TableMetadata base) {
        return new StagedTableOperations(identifier, io, null, base, null, false);
    }

    private StagedTableOperations(TableIdentifier identifier, FileIO io, String baseLocation, TableMetadata base,
            TableMetadata creating, boolean writesMetadata) {
        this.identifier = identifier;
        this.io = io;
        this.baseLocation = baseLocation;
        this.base = base;
        this.creating = creating;
        this.writesMetadata = writesMetadata;
    }

    /** The metadata the table had when the batch began; null for a table the batch creates. */
    TableMetadata base() {
        return base;
    }

    /** Whether the batch changed the table. */
    boolean changed() {
        return staged != null;
    }

    TableIdentifier identifier() {
        return identifier;
    }

    /** Where the catalog points before the batch; null for a new table. */
    String baseLocation() {
        return baseLocation;
    }

    /** The metadata file this batch wrote last for the table; null when it did not change the table. */
    String stagedLocation() {
        return stagedLocation;
    }

    @Override
    public TableMetadata current() {
        return staged != null ? staged : base;
    }

    @Override
    public TableMetadata refresh() {
        return current();
    }

    @Override
    public void commit(TableMetadata expected, TableMetadata metadata) {
        if (expected != current()) {
            throw new CommitFailedException("Cannot stage a change of %s: it was made from stale metadata",
                    identifier);
        }
        if (writesMetadata) {
            String location = metadataFileLocation(metadata, nextVersion());
            TableMetadataParser.write(metadata, io.newOutputFile(location));
            stagedLocation = location;
        }
        staged = metadata;
    }

    private int nextVersion() {
        String previous = stagedLocation != null ? stagedLocation : baseLocation;
        if (previous == null) {
            return 0;
        }
        Matcher version = VERSION.matcher(previous);
        return version.find() ? Integer.parseInt(version.group(1)) + 1 : 0;
    }

    private static String metadataFileLocation(TableMetadata metadata, int version) {
        return metadata.location() + "/metadata/" + String.format("%05d-%s.metadata.json", version,
                UUID.randomUUID());
    }

    @Override
    public FileIO io() {
        return io;
    }

    @Override
    public String metadataFileLocation(String fileName) {
        return placement().location() + "/metadata/" + fileName;
    }

    @Override
    public LocationProvider locationProvider() {
        return LocationProviders.locationsFor(placement().location(), placement().properties());
    }

    private TableMetadata placement() {
        return current() != null ? current() : creating;
    }
}
