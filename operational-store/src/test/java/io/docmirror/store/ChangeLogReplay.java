package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks what a crash may not break: the change log, replayed, gives exactly the items, with no LSN gap. */
final class ChangeLogReplay {
    private ChangeLogReplay() {
    }

    static void assertMatchesItems(EmbeddedStore store, String container, String when) {
        Map<String, String> replayed = new HashMap<>();
        int partitions = store.readContainer(container).logPartitions();
        for (int partition = 0; partition < partitions; partition++) {
            List<ChangeEvent> events = store.readChangeLog(container, partition, 0, Integer.MAX_VALUE).events();
            for (int index = 0; index < events.size(); index++) {
                ChangeEvent event = events.get(index);
                assertThat(event.lsn()).as("%s, partition %d: LSNs without gaps", when, partition)
                        .isEqualTo(index + 1);
                String key = event.partitionKey().toJson().asText() + "/" + event.id();
                if (event.operation() == Operation.DELETE) {
                    assertThat(replayed.remove(key)).as("%s: delete of a live item %s", when, key).isNotNull();
                }
                else {
                    replayed.put(key, event.document().orElseThrow().toString());
                }
            }
        }
        Map<String, String> items = new HashMap<>();
        for (Item item : StoreTesting.allItems(store, container)) {
            items.put(item.partitionKey().toJson().asText() + "/" + item.id(), item.tree().toString());
        }
        assertThat(replayed).as("%s: the change log replayed equals the items", when).isEqualTo(items);
    }
}
