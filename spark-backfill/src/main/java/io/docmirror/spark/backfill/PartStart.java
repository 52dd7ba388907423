package io.docmirror.spark.backfill;

import java.io.Serializable;

/**
 * A part of the container and the schema it starts from: what one task scans or writes.
 *
 * @param start the flattener schema the part starts from, without tallies ({@code SchemaPlan.startOf})
 */
record PartStart(int part, String start) implements Serializable {
}
