package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.RenamedSystemColumns;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Renames, in a mirror an earlier version made, the root table's system columns that have another name now
 * ({@link RenamedSystemColumns}), in one metadata-only commit when the tables are opened. Iceberg keeps a renamed
 * field's id, so the files written before read on under the new name; no file is rewritten.
 */
final class SystemColumnMigration {
    private static final Logger log = LoggerFactory.getLogger(SystemColumnMigration.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> ROLES = new TypeReference<>() {
    };

    private SystemColumnMigration() {
    }

    /**
     * @param rebuilding true for a rebuild, which replaces the tables: a new name a value column already holds is
     *     then left for the rebuild to sort out instead of refused
     * @throws MirrorException with {@code UNREADABLE_MIRROR} if a new name is a value column's (a document property
     *     of that name): only a rebuild can give that column another name
     */
    static void migrate(Catalog catalog, String container, String rootTable, boolean rebuilding) {
        TableIdentifier identifier = MirrorTables.table(container, rootTable);
        if (!catalog.tableExists(identifier)) {
            return;
        }
        Table table = catalog.loadTable(identifier);
        Map<String, String> due = new LinkedHashMap<>();
        RenamedSystemColumns.ROOT.forEach((before, now) -> {
            if (table.schema().findField(before) != null) {
                due.put(before, now);
            }
        });
        if (due.isEmpty()) {
            return;
        }
        for (Map.Entry<String, String> rename : due.entrySet()) {
            if (table.schema().findField(rename.getValue()) != null) {
                if (rebuilding) {
                    return;
                }
                throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                        "Cannot open the mirror of " + container + ": system column "
                        + rename.getKey() + " is now named " + rename.getValue() + ", but table " + rootTable
                        + " already has a column of that name (a document property); run `docmirror rebuild --table "
                        + rootTable + "` to give that column another name");
            }
        }
        Transaction transaction = table.newTransaction();
        UpdateSchema renames = transaction.updateSchema();
        due.forEach(renames::renameColumn);
        renames.commit();
        String roles = table.properties().get(MirrorProperties.COLUMN_ROLES);
        if (roles != null) {
            transaction.updateProperties().set(MirrorProperties.COLUMN_ROLES, renamedRoles(roles, due)).commit();
        }
        transaction.commitTransaction();
        log.info("Renamed system columns {} of table {} (a mirror made by an earlier version)", due, rootTable);
    }

    /** The column roles with the renamed columns under their new names, in the same order. */
    private static String renamedRoles(String json, Map<String, String> renames) {
        try {
            Map<String, String> renamed = new LinkedHashMap<>();
            JSON.readValue(json, ROLES).forEach((name, role) -> renamed.put(renames.getOrDefault(name, name), role));
            return JSON.writeValueAsString(renamed);
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The column roles of a table cannot be read: " + json, e);
        }
    }
}
