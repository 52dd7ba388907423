package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.feed.ContinuationToken;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The changes of {@link CommitStepCrashTest}'s batches, and the rows the tables hold after each. Batch n creates order
 * {@code d<n>} with two items and a column no earlier order has ({@code f<n>}: every batch changes the schema),
 * replaces {@code d<n-1>} (its rows get deleted: deletion vectors in the root and the child table) and deletes
 * {@code d<n-2>}. From batch 3 on, every batch takes the same steps to commit.
 */
final class OrderBatches {
    static final String CONTAINER = "orders";
    static final String ROOT = "orders";
    static final String ITEMS = "orders__items";
    static final String HISTORY = "orders_history";
    private static final TextNode PARTITION = TextNode.valueOf("c");
    private static final long FIRST_TS_MILLIS = 1_700_000_000_000L;

    private OrderBatches() {
    }

    /** The changes of batch {@code batch} (from 1), in the order they happened. */
    static List<ChangeEvent> changes(long batch) {
        List<ChangeEvent> changes = new ArrayList<>();
        if (batch >= 2) {
            ObjectNode replaced = order(batch - 1, -(batch - 1), "u");
            changes.add(change(batch, changes.size(), "d" + (batch - 1), Operation.REPLACE, replaced));
        }
        if (batch >= 3) {
            changes.add(change(batch, changes.size(), "d" + (batch - 2), Operation.DELETE, null));
        }
        ObjectNode created = order(batch, batch, "a", "b");
        created.put("f" + batch, true);
        changes.add(change(batch, changes.size(), "d" + batch, Operation.CREATE, created));
        return changes;
    }

    /** The root table's rows after batch {@code batch} (0: before the first), as {@code [id, v]}. */
    static Set<List<Object>> orders(long batch) {
        Set<List<Object>> rows = new HashSet<>();
        if (batch >= 1) {
            rows.add(List.of("d" + batch, batch));
        }
        if (batch >= 2) {
            rows.add(List.of("d" + (batch - 1), -(batch - 1)));
        }
        return rows;
    }

    /** The child table's rows after batch {@code batch}, as {@code [_id, sku]}. */
    static Set<List<Object>> items(long batch) {
        Set<List<Object>> rows = new HashSet<>();
        if (batch >= 1) {
            rows.add(List.of("d" + batch, "d" + batch + "-a"));
            rows.add(List.of("d" + batch, "d" + batch + "-b"));
        }
        if (batch >= 2) {
            rows.add(List.of("d" + (batch - 1), "d" + (batch - 1) + "-u"));
        }
        return rows;
    }

    /** The history's rows after batch {@code batch}: every change so far, as {@code [id, _lsn]}. */
    static Set<List<Object>> history(long batch) {
        Set<List<Object>> rows = new HashSet<>();
        for (long earlier = 1; earlier <= batch; earlier++) {
            changes(earlier).forEach(change -> rows.add(List.of(change.id(), change.lsn())));
        }
        return rows;
    }

    /**
     * Asserts that every table of the mirror in {@code mirrorDirectory} is at batch {@code batch} and holds exactly its
     * rows, read through Iceberg's reader (which fails on a file the tables list but the warehouse lacks).
     */
    static void assertTablesAt(MirrorConfig config, Path mirrorDirectory, long batch, String when) {
        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(mirrorDirectory))) {
            Map<String, Table> tables = new LinkedHashMap<>();
            for (String name : List.of(ROOT, ITEMS, HISTORY)) {
                tables.put(name, catalog.catalog().loadTable(TableIdentifier.of(CONTAINER, name)));
            }
            Map<String, String> batches = new LinkedHashMap<>();
            tables.forEach((name, table) -> batches.put(name, table.currentSnapshot().summary().get(
                    MirrorSummary.BATCH)));
            assertThat(batches.values()).as("the batch of each table %s: %s", when, batches)
                    .containsOnly(Long.toString(batch));
            assertThat(IcebergRows.read(tables.get(ROOT), "id", "v")).as("orders %s", when)
                    .containsExactlyInAnyOrderElementsOf(orders(batch));
            assertThat(IcebergRows.read(tables.get(ITEMS), "_id", "sku")).as("items %s", when)
                    .containsExactlyInAnyOrderElementsOf(items(batch));
            assertThat(IcebergRows.read(tables.get(HISTORY), "id", "_lsn")).as("history %s", when)
                    .containsExactlyInAnyOrderElementsOf(history(batch));
        }
    }

    /** Adds batch {@code number}'s changes to {@code batch} and commits it, as if it ended at LSN {@code number}. */
    static void commit(ContainerBatch batch, long number) {
        changes(number).forEach(batch::add);
        batch.commit(Checkpoint.ofContinuation(new ContinuationToken(CONTAINER, Map.of(0, number)).encode()));
    }

    private static ObjectNode order(long number, long value, String... itemSuffixes) {
        ObjectNode order = JsonNodeFactory.instance.objectNode();
        order.put("id", "d" + number);
        order.put("customerId", PARTITION.textValue());
        order.put("v", value);
        ArrayNode items = order.putArray("items");
        for (String suffix : itemSuffixes) {
            items.addObject().put("sku", "d" + number + "-" + suffix);
        }
        return order;
    }

    /** The {@code index}th change of batch {@code batch}: LSNs and times grow with both. */
    private static ChangeEvent change(long batch, int index, String id, Operation operation, ObjectNode document) {
        long lsn = batch * 10 + index;
        long ts = FIRST_TS_MILLIS + lsn * 1000;
        if (document != null) {
            document.put("_lsn", lsn);
            document.put("_ts", ts / 1000);
        }
        return new ChangeEvent(CONTAINER, PartitionKeyValue.of(PARTITION), id, operation, lsn, ts, false,
                Optional.ofNullable(document), Optional.empty());
    }
}
