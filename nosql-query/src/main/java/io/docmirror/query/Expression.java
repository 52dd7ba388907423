package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * A scalar expression of the query language. Its value is a JSON node, or Java's null for Cosmos DB's undefined (a
 * missing property, a comparison across types, a function given the wrong type): undefined is never true, so a row
 * whose filter is undefined does not match, and an undefined property is left out of a projected object.
 * Expressions are values: two expressions written alike are equal, which is how a select list is checked against
 * the GROUP BY expressions.
 */
interface Expression {
    /**
     * The value in a scope, null for undefined. The scope has the last word ({@link Scope#valueOf}): a row computes
     * every expression, while a group holds the values of its GROUP BY expressions rather than its rows.
     */
    default JsonNode evaluate(Scope scope) {
        return scope.valueOf(this);
    }

    /** The value computed from the values of this expression's operands in the scope, null for undefined. */
    JsonNode compute(Scope scope);

    /** The expressions this one is made of. */
    List<Expression> operands();

    /** Whether an aggregate (COUNT, SUM, ...) occurs in this expression. */
    default boolean containsAggregate() {
        return operands().stream().anyMatch(Expression::containsAggregate);
    }

    /**
     * Whether the expression has one value per group: it is one of the GROUP BY expressions, or it reads the rows
     * only through those and through aggregates. Only such expressions may be selected from a grouped query.
     */
    default boolean isGroupInvariant(List<Expression> groupBy) {
        return groupBy.contains(this) || operands().stream().allMatch(operand -> operand.isGroupInvariant(groupBy));
    }
}
