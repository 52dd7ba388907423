package io.docmirror.query;

import com.fasterxml.jackson.databind.node.TextNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.StringJoiner;

/**
 * Makes the {@link QueryPlan} of a query: which merge the SDK does, and the query each partition key range runs so
 * that its results carry what that merge needs, in the shapes Cosmos DB's gateway gives and the SDKs read:
 * <ul>
 *   <li>ORDER BY: {@code SELECT c._rid, [{"item": c.a}] AS orderByItems, c AS payload FROM c WHERE (filter) AND
 *       (where) ORDER BY c.a}, the SDK merge-sorting the ranges' streams on {@code orderByItems};</li>
 *   <li>SELECT VALUE aggregate: {@code SELECT VALUE [{"item": COUNT(1)}] FROM c}, partial results the SDK folds
 *       ({@code {"sum": SUM(x), "count": COUNT(x)}} for AVG, {@code {"min": MIN(x), "count": COUNT(x)}} for MIN);</li>
 *   <li>aggregates in a select list: {@code SELECT {"n": {"item": COUNT(1)}} AS payload FROM c};</li>
 *   <li>GROUP BY: {@code SELECT [{"item": c.g}] AS groupByItems, {"g": c.g, "n": {"item": COUNT(1)}} AS payload
 *       FROM c GROUP BY c.g}, the SDK grouping the ranges' groups again on {@code groupByItems};</li>
 *   <li>OFFSET LIMIT: each range gives its first offset + limit results ({@code OFFSET 0 LIMIT n}), the SDK
 *       skipping and taking over the merged stream.</li>
 * </ul>
 * TOP and DISTINCT need no rewriting: each range applies them and the SDK applies them again.
 */
final class QueryPlanner {
    private QueryPlanner() {
    }

    static QueryPlan plan(QueryModel model) {
        List<String> orderBy = model.orderBy().stream()
                .map(item -> item.descending() ? "Descending" : "Ascending").toList();
        List<String> orderByExpressions = model.orderBy().stream().map(SortItem::text).toList();
        String distinctType = !model.distinct() ? "None" : model.orderBy().isEmpty() ? "Unordered" : "Ordered";
        List<String> aggregates = new ArrayList<>();
        List<String> aliases = new ArrayList<>();
        Map<String, String> aliasToAggregate = new LinkedHashMap<>();
        String rewritten;
        if (model.isGrouped()) {
            rewritten = groupedQuery(model, aggregates, aliases, aliasToAggregate);
        } else if (!model.orderBy().isEmpty()) {
            rewritten = orderByQuery(model);
        } else if (model.offset().isPresent()) {
            rewritten = "SELECT " + selectPrefix(model) + selectionText(model.selection()) + fromAndWhere(model, null)
                    + offsetLimit(model);
        } else {
            rewritten = "";
        }
        return new QueryPlan(distinctType, model.top(), model.offset(), model.limit(), orderBy, orderByExpressions,
                model.groupByTexts(), aliases, aggregates, aliasToAggregate, rewritten,
                model.selection() instanceof Selection.Value);
    }

    private static String groupedQuery(QueryModel model, List<String> aggregates, List<String> aliases,
            Map<String, String> aliasToAggregate) {
        String groupBy = model.groupByTexts().isEmpty() ? "" : "\nGROUP BY " + String.join(", ", model.groupByTexts());
        if (model.selection() instanceof Selection.Value value) {
            if (!model.groupBy().isEmpty() || !(value.expression() instanceof AggregateCall aggregate)) {
                throw notMergeable("SELECT VALUE " + value.text() + (model.groupBy().isEmpty() ? "" : " with GROUP BY"));
            }
            aggregates.add(aggregate.function().planName());
            return "SELECT VALUE [{\"item\": " + partialAggregate(aggregate) + "}]" + fromAndWhere(model, null);
        }
        StringJoiner payload = new StringJoiner(", ", "{", "}");
        for (Selection.Items.Item item : ((Selection.Items) model.selection()).items()) {
            aliases.add(item.name());
            if (item.expression() instanceof AggregateCall aggregate) {
                aliasToAggregate.put(item.name(), aggregate.function().planName());
                payload.add(quoted(item.name()) + ": {\"item\": " + partialAggregate(aggregate) + "}");
            } else if (model.groupBy().contains(item.expression())) {
                aliasToAggregate.put(item.name(), null);
                payload.add(quoted(item.name()) + ": " + item.text());
            } else {
                throw notMergeable("the select item " + item.text() + ", which is neither an aggregate nor a GROUP BY "
                        + "expression,");
            }
        }
        if (model.groupBy().isEmpty()) {
            return "SELECT " + payload + " AS payload" + fromAndWhere(model, null);
        }
        StringJoiner groupByItems = new StringJoiner(", ", "[", "]");
        model.groupByTexts().forEach(text -> groupByItems.add("{\"item\": " + text + "}"));
        return "SELECT " + groupByItems + " AS groupByItems, " + payload + " AS payload" + fromAndWhere(model, null)
                + groupBy;
    }

    /** What one range gives of an aggregate for the SDK to fold with the other ranges'. */
    private static String partialAggregate(AggregateCall aggregate) {
        String argument = aggregate.argumentText();
        return switch (aggregate.function()) {
            case COUNT -> "COUNT(" + argument + ")";
            case SUM -> "SUM(" + argument + ")";
            case AVG -> "{\"sum\": SUM(" + argument + "), \"count\": COUNT(" + argument + ")}";
            case MIN -> "{\"min\": MIN(" + argument + "), \"count\": COUNT(" + argument + ")}";
            case MAX -> "{\"max\": MAX(" + argument + "), \"count\": COUNT(" + argument + ")}";
        };
    }

    private static String orderByQuery(QueryModel model) {
        StringJoiner items = new StringJoiner(", ", "[", "]");
        StringJoiner sort = new StringJoiner(", ");
        for (SortItem item : model.orderBy()) {
            items.add("{\"item\": " + item.text() + "}");
            sort.add(item.text() + (item.descending() ? " DESC" : " ASC"));
        }
        // The SDK's continuation names the _rid of the last document it read (it refuses to make one without). With
        // it every row is distinct, so a range does not run DISTINCT: the SDK drops the duplicates of its merged,
        // sorted stream (distinctType Ordered).
        boolean bindsDocument = model.from().bindsDocument();
        String resourceId = bindsDocument ? model.from().alias() + "._rid, " : "";
        String payload;
        if (model.selection() instanceof Selection.Items selected) {
            StringJoiner object = new StringJoiner(", ", "{", "}");
            selected.items().forEach(item -> object.add(quoted(item.name()) + ": " + item.text()));
            payload = object.toString();
        } else {
            payload = model.selection() instanceof Selection.Value value ? value.text()
                    : ((Selection.Star) model.selection()).alias();
        }
        String prefix = (model.distinct() && !bindsDocument ? "DISTINCT " : "")
                + (model.top().isPresent() ? "TOP " + model.top().getAsLong() + " " : "");
        return "SELECT " + prefix + resourceId + items + " AS orderByItems, " + payload + " AS payload"
                + fromAndWhere(model, QueryPlan.ORDER_BY_FILTER_PLACEHOLDER) + "\nORDER BY " + sort
                + offsetLimit(model);
    }

    private static String selectPrefix(QueryModel model) {
        return (model.distinct() ? "DISTINCT " : "") + (model.top().isPresent() ? "TOP " + model.top().getAsLong() + " " : "");
    }

    private static String selectionText(Selection selection) {
        if (selection instanceof Selection.Items selected) {
            StringJoiner list = new StringJoiner(", ");
            selected.items().forEach(item -> list.add(item.text() + " AS " + item.name()));
            return list.toString();
        }
        return selection instanceof Selection.Value value ? "VALUE " + value.text() : "*";
    }

    /** FROM and WHERE as the user wrote them, the filter (if any) in front of the user's. */
    private static String fromAndWhere(QueryModel model, String filter) {
        StringBuilder text = new StringBuilder();
        if (model.fromText() != null) {
            text.append("\nFROM ").append(model.fromText());
        }
        if (filter != null && model.whereText() != null) {
            text.append("\nWHERE (").append(filter).append(") AND (").append(model.whereText()).append(')');
        } else if (filter != null) {
            text.append("\nWHERE (").append(filter).append(')');
        } else if (model.whereText() != null) {
            text.append("\nWHERE ").append(model.whereText());
        }
        return text.toString();
    }

    /** Each range gives the results up to the end of the window; the SDK skips the offset over the merged stream. */
    private static String offsetLimit(QueryModel model) {
        OptionalLong offset = model.offset();
        if (offset.isEmpty()) {
            return "";
        }
        // Both are at most Integer.MAX_VALUE; a range never gives more than that many results anyway.
        return "\nOFFSET 0 LIMIT " + Math.min(Integer.MAX_VALUE, offset.getAsLong() + model.limit().getAsLong());
    }

    private static String quoted(String name) {
        return TextNode.valueOf(name).toString();
    }

    private static QueryException notMergeable(String what) {
        return new QueryException(QueryErrorCode.NOT_SUPPORTED, "Cannot plan the query across partitions: " + what
                + " cannot be merged from the partition key ranges' results; query one partition key value instead");
    }
}
