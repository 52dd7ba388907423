package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.RESTCatalog;

import java.util.Map;

/**
 * Changes to several tables of one catalog, staged table by table and committed together: the mirror's unit of
 * commit. How "together" is kept depends on the catalog ({@link SqliteCatalogBatch}, {@link RestCatalogBatch}).
 */
public interface CatalogBatch {
    /** The batch of the catalog {@code connection} opened with {@code settings}. */
    static CatalogBatch of(CatalogSettings settings, CatalogConnection connection, FileIO io) {
        return of(settings, connection, io, CommitObserver.NONE);
    }

    /** The batch of the catalog {@code connection} opened with {@code settings}, telling {@code observer} its steps. */
    static CatalogBatch of(CatalogSettings settings, CatalogConnection connection, FileIO io,
            CommitObserver observer) {
        return switch (settings.kind()) {
            case SQLITE -> new SqliteCatalogBatch(settings, io, observer);
            case REST -> new RestCatalogBatch((RESTCatalog) connection.catalog(), io, observer);
        };
    }

    /** Whether the catalog has the table now (a table this batch creates does not count until it commits). */
    boolean exists(TableIdentifier identifier);

    /** The table as this batch sees it: its changes are staged in the batch. */
    Table table(TableIdentifier identifier);

    /** Starts a table that the batch creates: a format version 3 table at {@code location}, unpartitioned. */
    Transaction create(TableIdentifier identifier, Schema schema, String location, Map<String, String> properties);

    /** Starts replacing a table: its snapshot history stays, with a new schema and new data files only. */
    Transaction replace(TableIdentifier identifier, Schema schema, Map<String, String> properties);

    /** Drops a table with the batch. */
    void drop(TableIdentifier identifier);

    /**
     * Commits every staged change.
     *
     * @return the tables that changed, with the metadata they now have
     * @throws CommitFailedException when a table changed since the batch read it (another writer), or the batch
     *     could not be sent: nothing changed, and the batch's files may go
     * @throws RuntimeException any other failure ({@code CommitStateUnknownException}, say): the batch may or may not
     *     be in the catalog, so its files must stay
     */
    Map<TableIdentifier, TableMetadata> commit();
}
