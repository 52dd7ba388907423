package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The value a query's filter requires of every document it gives at a property path: {@code c.customerId = 'c1'}
 * alone or as one side of AND ({@code ... AND c.customerId = @customer}). A gateway narrows the partition key ranges
 * a query runs over by it, as Cosmos DB's does.
 */
final class RequiredValue {
    private RequiredValue() {
    }

    /** @param path the property names from the document down ({@code customerId}; {@code address, city}) */
    static Optional<JsonNode> of(QueryModel model, List<String> path) {
        if (model.where() == null || !model.from().bindsDocument()) {
            return Optional.empty();
        }
        return find(model.where(), model.from().alias(), path);
    }

    private static Optional<JsonNode> find(Expression filter, String alias, List<String> path) {
        if (!(filter instanceof BinaryOperation operation)) {
            return Optional.empty();
        }
        if (operation.operator() == BinaryOperation.Operator.AND) {
            Optional<JsonNode> left = find(operation.left(), alias, path);
            return left.isPresent() ? left : find(operation.right(), alias, path);
        }
        if (operation.operator() != BinaryOperation.Operator.EQUAL) {
            return Optional.empty();
        }
        if (isPath(operation.left(), alias, path)) {
            return constant(operation.right());
        }
        return isPath(operation.right(), alias, path) ? constant(operation.left()) : Optional.empty();
    }

    private static boolean isPath(Expression expression, String alias, List<String> path) {
        List<String> names = new ArrayList<>();
        Expression current = expression;
        while (current instanceof PropertyAccess access) {
            String name = access.propertyName();
            if (name == null) {
                return false;
            }
            names.add(0, name);
            current = access.target();
        }
        return current instanceof Variable variable && variable.name().equals(alias) && names.equals(path);
    }

    /** A literal or a parameter's value; undefined requires nothing. */
    private static Optional<JsonNode> constant(Expression expression) {
        if (expression instanceof Literal literal) {
            return Optional.ofNullable(literal.value());
        }
        return expression instanceof ParameterReference parameter ? Optional.of(parameter.value()) : Optional.empty();
    }
}
