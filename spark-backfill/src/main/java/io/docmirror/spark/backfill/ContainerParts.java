package io.docmirror.spark.backfill;

import io.docmirror.store.changelog.ChangeEvent;

import java.io.Serializable;
import java.util.function.Consumer;

/**
 * A container's documents cut into parts: read one after the other, the parts are the documents in the order a
 * single-machine backfill reads them (feed range by feed range, each in the store's key order). It travels to the
 * executors, which read the parts.
 */
public interface ContainerParts extends Serializable {
    /** How many parts there are. */
    int count();

    /** Hands each document of part {@code part} to {@code documents}, in order. */
    void read(int part, Consumer<ChangeEvent> documents);
}
