package io.docmirror.store;

import java.nio.file.Path;

class EmbeddedStoreTest extends StoreContractTest {
    @Override
    StoreClient openClient(Path dataDir) {
        return EmbeddedStore.open(dataDir, StoreConfig.defaults(), TestingClock.atEpochSecond(1_767_225_600), false);
    }
}
