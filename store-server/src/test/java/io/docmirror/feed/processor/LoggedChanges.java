package io.docmirror.feed.processor;

import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.StoreClient;
import io.docmirror.store.changelog.ChangeEvent;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every change in a container's change log, by key ({@link ProcessorTesting#key}), with the feed range and LSN that
 * place it: to tell, from the keys a worker wrote, which feed ranges it handled and how far.
 */
final class LoggedChanges {
    /** One change: its key, its feed range (log partition) and its LSN in that range. */
    record Change(String key, int logPartition, long lsn) {
    }

    private final Map<String, Change> byKey;

    private LoggedChanges(Map<String, Change> byKey) {
        this.byKey = Collections.unmodifiableMap(byKey);
    }

    static LoggedChanges read(StoreClient store, String container) {
        Map<String, Change> byKey = new LinkedHashMap<>();
        int logPartitions = store.readContainer(container).logPartitions();
        for (int partition = 0; partition < logPartitions; partition++) {
            long after = 0;
            while (true) {
                ChangeLogPage page = store.readChangeLog(container, partition, after, 1000);
                if (page.events().isEmpty()) {
                    break;
                }
                for (ChangeEvent event : page.events()) {
                    String key = ProcessorTesting.key(event);
                    byKey.put(key, new Change(key, partition, event.lsn()));
                }
                after = page.events().get(page.events().size() - 1).lsn();
            }
        }
        return new LoggedChanges(byKey);
    }

    Set<String> keys() {
        return byKey.keySet();
    }

    /** The change with this key; empty for a key that is not in the log. */
    Optional<Change> find(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    int size() {
        return byKey.size();
    }
}
