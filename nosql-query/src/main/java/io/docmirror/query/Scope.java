package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** What an expression is evaluated against: one row's variables, or a group of rows for the aggregates. */
interface Scope {
    /** The value bound to a FROM or JOIN alias, or null when the alias is not bound in this row. */
    JsonNode variable(String name);

    /** The rows an aggregate runs over: the group's rows, or this row alone outside a grouping. */
    List<? extends Scope> rows();
}
