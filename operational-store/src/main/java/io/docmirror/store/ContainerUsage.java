package io.docmirror.store;

/**
 * A container's size on disk.
 *
 * @param itemBytes its current items
 * @param changeLogBytes its change events still within retention
 */
public record ContainerUsage(long itemBytes, long changeLogBytes) {
}
