package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

/** What an expression is evaluated against: one row's variables, or a group of rows for the select list. */
interface Scope {
    /** The value bound to a FROM or JOIN alias, or null when the alias is not bound in this row. */
    JsonNode variable(String name);

    /** The value of an expression in this scope, null for undefined: computed, unless the scope holds it. */
    default JsonNode valueOf(Expression expression) {
        return expression.compute(this);
    }

    /** The value of an aggregate over this scope's rows, null for undefined. */
    JsonNode aggregate(AggregateCall call);
}
