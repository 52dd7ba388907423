package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A container deleted and created again under the same name is a new container: its change log starts again from
 * LSN 1, so its mirror must start again too. The old container's mirror used to stay, and the new container's first
 * changes, at LSNs the old mirror had passed, were never mirrored.
 */
class RecreatedContainerTest {
    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aRecreatedContainerIsMirroredFromItsFirstChangeAndTheOldRowsAreGone() throws Exception {
        store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
        for (int index = 0; index < 3; index++) {
            store.createItem("events", "{\"id\":\"old" + index + "\",\"pk\":\"p\",\"n\":" + index + "}");
        }
        assertThat(sync().events()).isEqualTo(3);

        store.deleteContainer("events");
        store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
        for (int index = 0; index < 5; index++) {
            store.createItem("events", "{\"id\":\"new" + index + "\",\"pk\":\"p\",\"s\":\"x" + index + "\"}");
        }

        assertThat(sync().events()).as("the new container's changes, all of them").isEqualTo(5);
        assertThat(MirrorSql.query(work.resolve("mirror"), "events", "SELECT id FROM events ORDER BY id"))
                .containsExactly(List.of("new0"), List.of("new1"), List.of("new2"), List.of("new3"),
                        List.of("new4"));
        assertThat(MirrorSql.query(work.resolve("mirror"), "events", "SELECT count(*) FROM events_history"))
                .containsExactly(List.of(5L));
        assertThat(new Reconciler(store, work.resolve("mirror"), clock, 5).reconcile("events").exact()).isTrue();
    }

    private FeedMirror.SyncResult sync() {
        try (FeedMirror mirror = new FeedMirror(store, work.resolve("mirror"), MirrorConfig.defaults(),
                FlattenerConfig::defaults, clock)) {
            return mirror.sync();
        }
    }
}
