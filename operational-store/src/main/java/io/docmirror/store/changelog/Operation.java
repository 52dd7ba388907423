package io.docmirror.store.changelog;

/** What a change did to an item. An upsert of an existing item and a patch are both a {@code REPLACE}. */
public enum Operation {
    CREATE,
    REPLACE,
    DELETE
}
