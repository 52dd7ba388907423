package io.docmirror.mirror.reconcile;

import io.docmirror.mirror.reconcile.ReconcileReport.FeedRange;
import io.docmirror.mirror.reconcile.ReconcileReport.Tally;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What a reconcile compares, key by key, in a DuckDB database on disk: the mirror's documents and history, and the
 * store's side of each feed range as read from its change log and its documents. The comparisons are SQL (joins that
 * DuckDB spills to disk beyond its memory limit), and their results stream out ordered by key, so a reconcile holds
 * as much in memory for a billion documents as for ten.
 *
 * <p>Rows are added through DuckDB's appenders, which write them a chunk at a time. Every table holds each row's
 * feed range; a document's key is its {@link DocumentKey#bytes()}, and a version's hash or a change's the 64-bit
 * hash of its canonical JSON.
 */
final class ReconcileSpill implements AutoCloseable {
    private static final List<String> TABLES = List.of(
            "CREATE TABLE mirror_documents (feed_range INTEGER, document_key BLOB, hash BIGINT)",
            "CREATE TABLE mirror_history (feed_range INTEGER, lsn BIGINT, document_key BLOB, hash BIGINT)",
            // Where each feed range was compared: the mirror's position, and where the store's change log starts.
            "CREATE TABLE feed_ranges (feed_range INTEGER, mirrored_lsn BIGINT, log_start_lsn BIGINT, "
                    + "history_from BIGINT)",
            // The keys the store changed after the mirror's position (a key once a change).
            "CREATE TABLE changed_keys (feed_range INTEGER, document_key BLOB)",
            // The state each change of the log up to the mirror's position leaves (but for TTL expiries, which leave
            // the mirrored row): a version, or a user's delete (hash null).
            "CREATE TABLE log_states (feed_range INTEGER, lsn BIGINT, document_key BLOB, hash BIGINT, ts BIGINT)",
            "CREATE TABLE store_changes (feed_range INTEGER, lsn BIGINT, document_key BLOB, hash BIGINT)",
            "CREATE TABLE store_documents (feed_range INTEGER, document_key BLOB, hash BIGINT, ts BIGINT)");

    private final DuckDBConnection connection;
    private final DuckDBAppender mirrorDocuments;
    private final DuckDBAppender mirrorHistory;
    private final DuckDBAppender feedRanges;
    private final DuckDBAppender changedKeys;
    private final DuckDBAppender logStates;
    private final DuckDBAppender storeChanges;
    private final DuckDBAppender storeDocuments;
    private final List<DuckDBAppender> appenders;
    /** The last mirrored document added, not yet appended: the next one may have the same key. */
    private MirrorDocument pendingDocument;

    private record MirrorDocument(int feedRange, DocumentKey key, long hash) {
    }

    /** One key on which the two sides differ: a document's, or a change's (at {@code lsn}). */
    record KeyDifference(int feedRange, boolean change, long lsn, DocumentKey key, boolean inStore,
            boolean inMirror) {
    }

    interface DifferenceSink {
        void accept(KeyDifference difference) throws SQLException;
    }

    /** An empty database in {@code scratch}. */
    ReconcileSpill(ReconcileScratch scratch) throws SQLException {
        connection = scratch.openDatabase("facts");
        try {
            try (Statement statement = connection.createStatement()) {
                for (String table : TABLES) {
                    statement.execute(table);
                }
            }
            mirrorDocuments = connection.createAppender("mirror_documents");
            mirrorHistory = connection.createAppender("mirror_history");
            feedRanges = connection.createAppender("feed_ranges");
            changedKeys = connection.createAppender("changed_keys");
            logStates = connection.createAppender("log_states");
            storeChanges = connection.createAppender("store_changes");
            storeDocuments = connection.createAppender("store_documents");
            appenders = List.of(mirrorDocuments, mirrorHistory, feedRanges, changedKeys, logStates, storeChanges,
                    storeDocuments);
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
    }

    /**
     * A document the mirror serves. Documents come in the order of their keys; one key twice in a row (a mirror that
     * holds two root rows for one document) counts once, with the last version.
     */
    void addMirrorDocument(int feedRange, DocumentKey key, long hash) throws SQLException {
        if (pendingDocument != null && (pendingDocument.feedRange() != feedRange
                || !pendingDocument.key().equals(key))) {
            appendPendingDocument();
        }
        pendingDocument = new MirrorDocument(feedRange, key, hash);
    }

    private void appendPendingDocument() throws SQLException {
        mirrorDocuments.beginRow().append(pendingDocument.feedRange()).append(pendingDocument.key().bytes())
                .append(pendingDocument.hash()).endRow();
        pendingDocument = null;
    }

    /** A change the mirror's history holds. */
    void addMirrorChange(int feedRange, long lsn, DocumentKey key, long hash) throws SQLException {
        mirrorHistory.beginRow().append(feedRange).append(lsn).append(key.bytes()).append(hash).endRow();
    }

    /**
     * A feed range, once the store's side of it is added.
     *
     * @param mirroredLsn the mirror's position in it
     * @param logStartLsn where the store's change log starts: changes up to it are gone from the log
     * @param historyFrom where the mirror's history starts being the change log's (before: a backfill's versions)
     */
    void addFeedRange(int feedRange, long mirroredLsn, long logStartLsn, long historyFrom) throws SQLException {
        feedRanges.beginRow().append(feedRange).append(mirroredLsn).append(logStartLsn).append(historyFrom).endRow();
    }

    /** A key the store changed after the mirror's position. */
    void addChangedKey(int feedRange, DocumentKey key) throws SQLException {
        changedKeys.beginRow().append(feedRange).append(key.bytes()).endRow();
    }

    /** The version a change of the log up to the mirror's position leaves. */
    void addLogVersion(int feedRange, long lsn, DocumentKey key, long hash, long ts) throws SQLException {
        logStates.beginRow().append(feedRange).append(lsn).append(key.bytes()).append(hash).append(ts).endRow();
    }

    /** A user's delete in the log up to the mirror's position (not a TTL expiry, which leaves the mirrored row). */
    void addLogDelete(int feedRange, long lsn, DocumentKey key, long ts) throws SQLException {
        logStates.beginRow().append(feedRange).append(lsn).append(key.bytes()).appendNull().append(ts).endRow();
    }

    /** A change of the store's change log, to compare with the mirror's history. */
    void addStoreChange(int feedRange, long lsn, DocumentKey key, long hash) throws SQLException {
        storeChanges.beginRow().append(feedRange).append(lsn).append(key.bytes()).append(hash).endRow();
    }

    /** A document the store holds now. */
    void addStoreDocument(int feedRange, DocumentKey key, long hash, long ts) throws SQLException {
        storeDocuments.beginRow().append(feedRange).append(key.bytes()).append(hash).append(ts).endRow();
    }

    /**
     * Works out, once every row is added, what each side should hold: per key, the store's version as of the
     * mirror's position and whether it can be told at all.
     *
     * @param ttlCutoff versions whose {@code _ts} is this or older are past the analytical TTL, left out
     * @param defaultTtl whether the container's documents can expire in the store
     */
    void settle(long ttlCutoff, boolean defaultTtl) throws SQLException {
        if (pendingDocument != null) {
            appendPendingDocument();
        }
        for (DuckDBAppender appender : appenders) {
            appender.close();
        }
        String sameDocument = " ON %1$s.feed_range = %2$s.feed_range AND %1$s.document_key = %2$s.document_key";
        try (Statement statement = connection.createStatement()) {
            // Of each key the log names, the state its last change up to the mirror's position leaves.
            statement.execute("CREATE TABLE log_fold AS SELECT s.feed_range, s.document_key, s.hash, s.ts "
                    + "FROM log_states AS s SEMI JOIN (SELECT feed_range, document_key, max(lsn) AS lsn "
                    + "FROM log_states GROUP BY feed_range, document_key) AS latest"
                    + sameDocument.formatted("s", "latest") + " AND s.lsn = latest.lsn");
            // What the store held at the mirror's position: a document not changed since as it is now; one changed
            // since as the log leaves it; and one that expired in the store (the mirror keeps it) as the log leaves
            // it, when the log still holds it.
            statement.execute("CREATE TABLE expected AS SELECT * FROM ("
                    + "SELECT d.feed_range, d.document_key, d.hash, d.ts FROM store_documents AS d "
                    + "ANTI JOIN changed_keys AS c" + sameDocument.formatted("c", "d")
                    + " UNION ALL SELECT f.feed_range, f.document_key, f.hash, f.ts FROM log_fold AS f "
                    + "SEMI JOIN changed_keys AS c" + sameDocument.formatted("c", "f") + " WHERE f.hash IS NOT NULL"
                    + " UNION ALL SELECT f.feed_range, f.document_key, f.hash, f.ts FROM log_fold AS f "
                    + "ANTI JOIN store_documents AS d" + sameDocument.formatted("d", "f")
                    + " ANTI JOIN changed_keys AS c" + sameDocument.formatted("c", "f")
                    + " WHERE f.hash IS NOT NULL) WHERE ts > " + ttlCutoff);
            // Keys whose state at the mirror's position the store can no longer tell, once its log has lost its
            // start: changed since, by a change the log holds no state before; or mirrored, gone from the store
            // and unknown to the log (they may have expired in the store before the log's start).
            statement.execute("CREATE TABLE not_comparable AS "
                    + "SELECT c.feed_range, c.document_key FROM changed_keys AS c "
                    + "ANTI JOIN log_fold AS f" + sameDocument.formatted("f", "c")
                    + " WHERE c.feed_range IN (SELECT feed_range FROM feed_ranges WHERE log_start_lsn > 0)"
                    + " UNION SELECT m.feed_range, m.document_key FROM mirror_documents AS m "
                    + "ANTI JOIN store_documents AS d" + sameDocument.formatted("d", "m")
                    + " ANTI JOIN changed_keys AS c" + sameDocument.formatted("c", "m")
                    + " ANTI JOIN log_fold AS f" + sameDocument.formatted("f", "m")
                    + " WHERE " + defaultTtl
                    + " AND m.feed_range IN (SELECT feed_range FROM feed_ranges WHERE log_start_lsn > 0)");
            // The mirror's history in the span the change log holds: after its start, up to the mirror's position.
            statement.execute("CREATE VIEW mirror_changes AS SELECT h.* FROM mirror_history AS h "
                    + "JOIN feed_ranges AS r ON r.feed_range = h.feed_range "
                    + "WHERE h.lsn > r.log_start_lsn AND h.lsn <= r.mirrored_lsn");
        }
    }

    /**
     * Hands every key on which the sides differ to {@code sink}, per feed range: the documents by key, then the
     * changes by LSN and key. Documents whose state the store can no longer tell are left out.
     *
     * @param loadedWithoutOperations whether the history before where it starts being the change log's was loaded
     *     from a feed that cannot tell a create from a replace (a Cosmos DB account's latest-version feed): its
     *     changes are not compared there at all, not only those missing from the mirror
     */
    void forEachDifference(boolean loadedWithoutOperations, DifferenceSink sink) throws SQLException {
        String query = "WITH documents AS ("
                + "SELECT coalesce(s.feed_range, m.feed_range) AS feed_range, "
                + "coalesce(s.document_key, m.document_key) AS document_key, "
                + "s.document_key IS NOT NULL AS in_store, m.document_key IS NOT NULL AS in_mirror "
                + "FROM expected AS s FULL OUTER JOIN mirror_documents AS m "
                + "ON s.feed_range = m.feed_range AND s.document_key = m.document_key "
                + "WHERE s.document_key IS NULL OR m.document_key IS NULL OR s.hash <> m.hash), "
                + "changes AS ("
                + "SELECT coalesce(s.feed_range, m.feed_range) AS feed_range, coalesce(s.lsn, m.lsn) AS lsn, "
                + "coalesce(s.document_key, m.document_key) AS document_key, "
                + "s.lsn IS NOT NULL AS in_store, m.lsn IS NOT NULL AS in_mirror "
                + "FROM store_changes AS s FULL OUTER JOIN mirror_changes AS m "
                + "ON s.feed_range = m.feed_range AND s.lsn = m.lsn AND s.document_key = m.document_key "
                + "WHERE s.lsn IS NULL OR m.lsn IS NULL OR s.hash <> m.hash) "
                + "SELECT d.feed_range, false AS change, 0 AS lsn, d.document_key, d.in_store, d.in_mirror "
                + "FROM documents AS d ANTI JOIN not_comparable AS n "
                + "ON n.feed_range = d.feed_range AND n.document_key = d.document_key "
                + "UNION ALL SELECT c.feed_range, true, c.lsn, c.document_key, c.in_store, c.in_mirror "
                + "FROM changes AS c JOIN feed_ranges AS r ON r.feed_range = c.feed_range "
                // Before a backfill's end, the history holds each document's version as of its snapshot.
                + "WHERE NOT (c.lsn <= r.history_from AND (NOT c.in_mirror OR " + loadedWithoutOperations + ")) "
                + "ORDER BY feed_range, change, lsn, document_key";
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(query)) {
            while (result.next()) {
                sink.accept(new KeyDifference(result.getInt(1), result.getBoolean(2), result.getLong(3),
                        DocumentKey.of(result.getBytes(4)), result.getBoolean(5), result.getBoolean(6)));
            }
        }
    }

    /** Every feed range's counts and checksums, by feed range. */
    List<FeedRange> feedRanges() throws SQLException {
        String query = "SELECT r.feed_range, r.mirrored_lsn, r.log_start_lsn, "
                + "s.count, s.checksum, m.count, m.checksum, sc.count, sc.checksum, mc.count, mc.checksum, "
                + "coalesce(n.count, 0) "
                + "FROM feed_ranges AS r "
                + "LEFT JOIN " + tally("expected") + " AS s ON s.feed_range = r.feed_range "
                + "LEFT JOIN " + tally("mirror_documents") + " AS m ON m.feed_range = r.feed_range "
                + "LEFT JOIN " + tally("store_changes") + " AS sc ON sc.feed_range = r.feed_range "
                + "LEFT JOIN " + tally("mirror_changes") + " AS mc ON mc.feed_range = r.feed_range "
                + "LEFT JOIN (SELECT feed_range, count(*) AS count FROM not_comparable GROUP BY feed_range) AS n "
                + "ON n.feed_range = r.feed_range "
                + "ORDER BY r.feed_range";
        List<FeedRange> ranges = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(query)) {
            while (result.next()) {
                ranges.add(new FeedRange(result.getInt(1), result.getLong(2), tally(result, 4), tally(result, 6),
                        result.getLong(3), tally(result, 8), tally(result, 10), result.getLong(12)));
            }
        }
        return ranges;
    }

    /**
     * The count and the sum of the hashes of each feed range's rows in {@code relation}. DuckDB sums BIGINTs into a
     * HUGEINT, which {@link #tally(ResultSet, int)} wraps to 64 bits as Java's long addition does.
     */
    private static String tally(String relation) {
        return "(SELECT feed_range, count(*) AS count, sum(hash) AS checksum FROM " + relation
                + " GROUP BY feed_range)";
    }

    /** The tally whose count is column {@code column} and checksum the next; none: no rows. */
    private static Tally tally(ResultSet result, int column) throws SQLException {
        Object checksum = result.getObject(column + 1);
        return new Tally(result.getLong(column), checksum == null ? 0 : ((BigInteger) checksum).longValue());
    }

    @Override
    public void close() throws SQLException {
        try (connection) {
            for (DuckDBAppender appender : appenders) {
                if (!appender.isClosed()) {
                    appender.close();
                }
            }
        }
    }
}
