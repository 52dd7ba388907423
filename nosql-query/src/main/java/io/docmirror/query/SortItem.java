package io.docmirror.query;

import java.util.Objects;

/** One ORDER BY item: a property path, its direction, and its text in the query. */
record SortItem(Expression expression, boolean descending, String text) {
    SortItem {
        Objects.requireNonNull(expression, "expression is null");
        Objects.requireNonNull(text, "text is null");
    }
}
