package io.docmirror.store;

/** The container snapshot's contract in process. */
class EmbeddedSnapshotTest extends SnapshotContractTest {
    @Override
    SnapshotSource snapshotsOf(EmbeddedStore store) {
        return store;
    }

    @Override
    void closeSnapshots() {
        assertNoSnapshotLeftOpen(store);
    }

    static void assertNoSnapshotLeftOpen(EmbeddedStore store) {
        org.assertj.core.api.Assertions.assertThat(store.openSnapshots()).as("snapshots left open").isZero();
    }
}
