package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Objects;

/** What a query selects: the whole input ({@code *}), one value per row ({@code VALUE e}), or an object of aliases. */
sealed interface Selection {
    /** The result for a row or group, null when it is undefined (and so left out of the results). */
    JsonNode project(Scope scope);

    /** The expressions selected, for the checks on aggregates and grouping. */
    List<Expression> expressions();

    /** {@code SELECT *}: the value of the one FROM source. */
    record Star(String alias) implements Selection {
        public Star {
            Objects.requireNonNull(alias, "alias is null");
        }

        @Override
        public JsonNode project(Scope scope) {
            return scope.variable(alias);
        }

        @Override
        public List<Expression> expressions() {
            return List.of(new Variable(alias));
        }
    }

    /** {@code SELECT VALUE e}: the value itself, not wrapped in an object. */
    record Value(Expression expression, String text) implements Selection {
        public Value {
            Objects.requireNonNull(expression, "expression is null");
        }

        @Override
        public JsonNode project(Scope scope) {
            return expression.evaluate(scope);
        }

        @Override
        public List<Expression> expressions() {
            return List.of(expression);
        }
    }

    /** {@code SELECT a AS x, b}: an object with one property per item, undefined ones left out. */
    record Items(List<Item> items) implements Selection {
        /** One selected expression, the property name it gets, and its text in the query. */
        public record Item(String name, Expression expression, String text) {
            public Item {
                Objects.requireNonNull(name, "name is null");
                Objects.requireNonNull(expression, "expression is null");
            }
        }

        public Items {
            items = List.copyOf(items);
        }

        @Override
        public JsonNode project(Scope scope) {
            return new ObjectConstructor(items.stream()
                    .map(item -> new ObjectConstructor.Property(item.name(), item.expression()))
                    .toList()).evaluate(scope);
        }

        @Override
        public List<Expression> expressions() {
            return items.stream().map(Item::expression).toList();
        }
    }
}
