package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The change log keeps events for its retention, then removes them; a reader from before is told, never skipped. */
class ChangeLogRetentionTest {
    @TempDir
    Path dataDir;

    TestingClock clock = TestingClock.atEpochSecond(1_767_225_600);
    EmbeddedStore store;

    @AfterEach
    void tearDown() {
        store.close();
    }

    private void open(long retentionMs, long retentionEvents) {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withChangeLogRetention(retentionMs, retentionEvents),
                clock, false);
        if (store.listContainers().isEmpty()) {
            store.createContainer(ContainerProperties.of("c", "/pk").withLogPartitions(1));
        }
    }

    @Test
    void eventsOlderThanTheRetentionTimeAreRemovedAndReadingFromThemFails() {
        open(60_000, -1);
        for (int index = 1; index <= 5; index++) {
            store.upsertItem("c", "{\"id\":\"a" + index + "\",\"pk\":\"p\"}");
            clock.advanceSeconds(20);
        }
        // Now is 100 s after the first write: the events of 0 s and 20 s are gone; the one of 40 s, exactly 60 s old, stays.
        assertThat(store.trimChangeLog(1000)).isEqualTo(2);

        ChangeLogPage page = store.readChangeLog("c", 0, 2, 100);
        assertThat(page.logStartLsn()).isEqualTo(2);
        assertThat(page.events()).extracting(ChangeEvent::lsn).containsExactly(3L, 4L, 5L);
        assertThatThrownBy(() -> store.readChangeLog("c", 0, 1, 100))
                .isInstanceOf(StoreException.class)
                .hasMessage("Cannot read the change log of container c, log partition 0, after LSN 1: events up to LSN 2 "
                        + "have passed the change log's retention; the oldest available position is after LSN 2")
                .extracting(e -> ((StoreException) e).code()).isEqualTo(StoreErrorCode.GONE);
    }

    @Test
    void atMostTheRetainedNumberOfEventsIsKeptAndTheStartSurvivesARestart() {
        open(-1, 3);
        for (int index = 1; index <= 10; index++) {
            store.upsertItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":" + index + "}");
        }
        assertThat(store.trimChangeLog(1000)).isEqualTo(7);
        store.close();

        open(-1, 3);
        ChangeLogPage page = store.readChangeLog("c", 0, 7, 100);
        assertThat(page.logStartLsn()).isEqualTo(7);
        assertThat(page.events()).extracting(ChangeEvent::lsn).containsExactly(8L, 9L, 10L);
        assertThatThrownBy(() -> store.readChangeLog("c", 0, 0, 100))
                .extracting(e -> ((StoreException) e).code()).isEqualTo(StoreErrorCode.GONE);
        // Items are untouched: retention trims the log, never the data.
        assertThat(store.findItem("c", PartitionKey.of("p"), "a").orElseThrow().tree().get("v").asInt()).isEqualTo(10);
    }

    @Test
    void aTrimIsBoundedPerCallAndWritesGoOnAfterIt() {
        open(-1, 1);
        for (int index = 1; index <= 10; index++) {
            store.upsertItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":" + index + "}");
        }
        assertThat(store.trimChangeLog(4)).isEqualTo(4);
        assertThat(store.trimChangeLog(4)).isEqualTo(4);
        assertThat(store.trimChangeLog(4)).isEqualTo(1);
        assertThat(store.trimChangeLog(4)).isZero();

        store.upsertItem("c", "{\"id\":\"a\",\"pk\":\"p\",\"v\":11}");
        assertThat(store.readChangeLog("c", 0, 9, 100).events()).extracting(ChangeEvent::lsn).containsExactly(10L, 11L);
    }
}
