package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Backfill's view of a log partition: exactly the changes up to one LSN, whatever is written meanwhile. */
class PartitionSnapshotTest {
    @TempDir
    Path dataDir;

    TestingClock clock = TestingClock.atEpochSecond(1_767_225_600);
    EmbeddedStore store;

    @BeforeEach
    void setUp() {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults(), clock, false);
        store.createContainer(ContainerProperties.of("c", "/pk").withLogPartitions(1));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void seesEveryItemAsOfItsLsnAndNothingWrittenWhileItIsRead() {
        store.createItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":1}");
        store.createItem("c", "{\"id\":\"b\",\"pk\":\"p\",\"v\":1}");
        store.upsertItem("c", "{\"id\":\"b\",\"pk\":\"p\",\"v\":2}");
        store.createItem("c", "{\"id\":\"gone\",\"pk\":\"q\"}");
        store.deleteItem("c", PartitionKey.of("q"), "gone", Precondition.NONE);

        List<ChangeEvent> seen = new ArrayList<>();
        long lsn;
        try (PartitionSnapshot snapshot = store.snapshot("c", 0)) {
            lsn = snapshot.lsn();
            seen.addAll(snapshot.next(1));
            // Written after the snapshot was taken: a change, a delete and a new item, none of which it may show.
            store.upsertItem("c", "{\"id\":\"b\",\"pk\":\"p\",\"v\":3}");
            store.deleteItem("c", PartitionKey.of("p"), "a", Precondition.NONE);
            store.createItem("c", "{\"id\":\"c\",\"pk\":\"p\",\"v\":1}");
            for (List<ChangeEvent> page = snapshot.next(10); !page.isEmpty(); page = snapshot.next(10)) {
                seen.addAll(page);
            }
        }

        assertThat(lsn).isEqualTo(5);
        assertThat(seen).extracting(ChangeEvent::id, ChangeEvent::operation, ChangeEvent::lsn)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", Operation.CREATE, 1L),
                        org.assertj.core.groups.Tuple.tuple("b", Operation.REPLACE, 3L));
        assertThat(seen.get(1).document().orElseThrow().get("v").asInt()).isEqualTo(2);
        assertThat(new String(seen.get(1).documentJson().orElseThrow(), StandardCharsets.UTF_8))
                .isEqualTo(store.readChangeLog("c", 0, 2, 1).events().get(0).documentJson()
                        .map(json -> new String(json, StandardCharsets.UTF_8)).orElseThrow());
        // What the snapshot missed is exactly what the change log holds after its LSN.
        assertThat(store.readChangeLog("c", 0, lsn, 100).events()).extracting(ChangeEvent::lsn)
                .containsExactly(6L, 7L, 8L);
    }

    @Test
    void leavesOutItemsWhoseTtlHasPassed() {
        // An item's own ttl counts only where the container has TTL on (-1: on, items live forever by default).
        store.createContainer(ContainerProperties.of("t", "/pk").withDefaultTtl(-1).withLogPartitions(1));
        store.createItem("t", "{\"id\":\"short\",\"pk\":\"p\",\"ttl\":10}");
        store.createItem("t", "{\"id\":\"long\",\"pk\":\"p\"}");
        clock.advanceSeconds(10);

        try (PartitionSnapshot snapshot = store.snapshot("t", 0)) {
            assertThat(snapshot.next(10)).extracting(ChangeEvent::id).containsExactly("long");
        }
    }

    @Test
    void anEmptyLogPartitionIsAtLsnZero() {
        try (PartitionSnapshot snapshot = store.snapshot("c", 0)) {
            assertThat(snapshot.lsn()).isZero();
            assertThat(snapshot.next(10)).isEmpty();
        }
    }

    @Test
    void refusesALogPartitionTheContainerDoesNotHave() {
        assertThatThrownBy(() -> store.snapshot("c", 1)).isInstanceOf(StoreException.class)
                .hasMessageContaining("log partition");
    }
}
