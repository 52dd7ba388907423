package io.docmirror.mirror.iceberg;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Told of each {@link CommitStep} as a batch's commit reaches it. The mirror runs with {@link #NONE}; a crash test
 * passes its own (only through package-private factories and constructors: {@link ContainerTables}' and the
 * catalog batches') to stop the writer at a chosen step and kill it there.
 */
@FunctionalInterface
interface CommitObserver {
    CommitObserver NONE = (step, table) -> {
    };

    /**
     * @param table the table the step is of; null for a step of the whole batch
     */
    void reached(CommitStep step, TableIdentifier table);
}
