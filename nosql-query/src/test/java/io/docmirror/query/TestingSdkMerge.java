package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What an official SDK does with a query plan, as far as the tests need: it runs the rewritten query (or the user's)
 * on each partition key range and merges the ranges' results as the Java SDK's execution contexts do (merge-sort on
 * orderByItems, folding {"item": ...} partial aggregates, regrouping on groupByItems, DISTINCT, OFFSET, LIMIT, TOP).
 * One liberty: sums are added exactly, where the SDK adds doubles, so that results compare exactly.
 */
final class TestingSdkMerge {
    private TestingSdkMerge() {
    }

    static List<JsonNode> run(String text, Map<String, JsonNode> parameters, List<List<JsonNode>> ranges) {
        NoSqlQuery original = NoSqlQuery.parse(text, parameters);
        JsonNode queryInfo = original.plan().toJson().get("queryInfo");
        String rewritten = queryInfo.get("rewrittenQuery").textValue();
        String rangeQuery = rewritten.isEmpty() ? text
                : rewritten.replace(QueryPlan.ORDER_BY_FILTER_PLACEHOLDER, "true");
        NoSqlQuery perRange = NoSqlQuery.parse(rangeQuery, parameters);
        List<List<JsonNode>> rangeResults = new ArrayList<>();
        for (List<JsonNode> range : ranges) {
            rangeResults.add(perRange.execute(range));
        }
        List<JsonNode> merged;
        if (queryInfo.get("groupByExpressions").size() > 0) {
            merged = regroup(queryInfo, rangeResults);
        } else if (queryInfo.get("aggregates").size() > 0) {
            merged = foldValueAggregate(queryInfo.get("aggregates").get(0).textValue(), rangeResults);
        } else if (queryInfo.get("groupByAliasToAggregateType").size() > 0) {
            merged = foldSelectListAggregates(queryInfo, rangeResults);
        } else if (queryInfo.get("orderBy").size() > 0) {
            merged = mergeSorted(queryInfo.get("orderBy"), rangeResults);
        } else {
            merged = new ArrayList<>();
            rangeResults.forEach(merged::addAll);
        }
        if (!queryInfo.get("distinctType").textValue().equals("None")) {
            Set<String> seen = new HashSet<>();
            merged.removeIf(result -> !seen.add(JsonOrder.key(result)));
        }
        int offset = queryInfo.get("offset").isNull() ? 0 : queryInfo.get("offset").intValue();
        int limit = queryInfo.get("limit").isNull() ? Integer.MAX_VALUE : queryInfo.get("limit").intValue();
        int top = queryInfo.get("top").isNull() ? Integer.MAX_VALUE : queryInfo.get("top").intValue();
        return merged.stream().skip(offset).limit(Math.min(limit, top)).toList();
    }

    /** The streams of the ranges merged on orderByItems, ties in range order; then each payload. */
    private static List<JsonNode> mergeSorted(JsonNode sortOrders, List<List<JsonNode>> rangeResults) {
        List<JsonNode> all = new ArrayList<>();
        rangeResults.forEach(all::addAll);
        Comparator<JsonNode> order = (left, right) -> 0;
        for (int index = 0; index < sortOrders.size(); index++) {
            int itemIndex = index;
            Comparator<JsonNode> byItem = Comparator.comparing(
                    result -> result.get("orderByItems").get(itemIndex).get("item"), JsonOrder::compare);
            order = order.thenComparing(sortOrders.get(index).textValue().equals("Descending")
                    ? byItem.reversed() : byItem);
        }
        all.sort(order);
        return new ArrayList<>(all.stream().map(result -> result.get("payload")).filter(payload -> payload != null).toList());
    }

    private static List<JsonNode> foldValueAggregate(String aggregate, List<List<JsonNode>> rangeResults) {
        Fold fold = new Fold(aggregate);
        for (List<JsonNode> results : rangeResults) {
            for (JsonNode result : results) {
                result.forEach(fold::add);
            }
        }
        JsonNode value = fold.result();
        return value == null ? new ArrayList<>() : new ArrayList<>(List.of(value));
    }

    private static List<JsonNode> foldSelectListAggregates(JsonNode queryInfo, List<List<JsonNode>> rangeResults) {
        Map<String, Fold> folds = folds(queryInfo);
        for (List<JsonNode> results : rangeResults) {
            for (JsonNode result : results) {
                folds.forEach((alias, fold) -> fold.add(result.get("payload").get(alias)));
            }
        }
        return new ArrayList<>(List.of(object(folds)));
    }

    private static List<JsonNode> regroup(JsonNode queryInfo, List<List<JsonNode>> rangeResults) {
        Map<String, Map<String, Fold>> groups = new LinkedHashMap<>();
        for (List<JsonNode> results : rangeResults) {
            for (JsonNode result : results) {
                Map<String, Fold> folds = groups.computeIfAbsent(JsonOrder.key(result.get("groupByItems")),
                        key -> folds(queryInfo));
                JsonNode payload = result.get("payload");
                folds.forEach((alias, fold) -> fold.add(payload.get(alias)));
            }
        }
        return new ArrayList<>(groups.values().stream().map(TestingSdkMerge::object).toList());
    }

    private static Map<String, Fold> folds(JsonNode queryInfo) {
        Map<String, Fold> folds = new LinkedHashMap<>();
        for (JsonNode alias : queryInfo.get("groupByAliases")) {
            JsonNode aggregate = queryInfo.get("groupByAliasToAggregateType").get(alias.textValue());
            folds.put(alias.textValue(), new Fold(aggregate.isNull() ? null : aggregate.textValue()));
        }
        return folds;
    }

    private static JsonNode object(Map<String, Fold> folds) {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        folds.forEach((alias, fold) -> {
            JsonNode value = fold.result();
            if (value != null) {
                object.set(alias, value);
            }
        });
        return object;
    }

    /** One aggregate (or, with none, a GROUP BY value: the first one seen) folded over the ranges' partials. */
    private static final class Fold {
        private final String aggregate;
        private BigDecimal sum;
        private long count;
        private JsonNode value;
        private boolean seen;

        Fold(String aggregate) {
            this.aggregate = aggregate;
        }

        void add(JsonNode partial) {
            if (aggregate == null) {
                if (!seen) {
                    value = partial;
                    seen = true;
                }
                return;
            }
            JsonNode item = partial == null ? null : partial.get("item");
            if (item == null) {
                return;
            }
            switch (aggregate) {
                case "Count" -> count += item.longValue();
                case "Sum" -> sum = (sum == null ? BigDecimal.ZERO : sum).add(item.decimalValue());
                case "Average" -> {
                    if (item.get("sum") != null) {
                        sum = (sum == null ? BigDecimal.ZERO : sum).add(item.get("sum").decimalValue());
                        count += item.get("count").longValue();
                    }
                }
                default -> {
                    String name = aggregate.equals("Min") ? "min" : "max";
                    if (item.get("count").longValue() == 0 || item.get(name) == null) {
                        return;
                    }
                    JsonNode candidate = item.get(name);
                    int comparison = value == null ? 0 : JsonOrder.compare(candidate, value);
                    if (value == null || (name.equals("min") ? comparison < 0 : comparison > 0)) {
                        value = candidate;
                    }
                }
            }
        }

        JsonNode result() {
            if (aggregate == null) {
                return value;
            }
            return switch (aggregate) {
                case "Count" -> JsonNodeFactory.instance.numberNode(count);
                case "Sum" -> sum == null ? null : DecimalArithmetic.node(sum);
                case "Average" -> sum == null || count == 0 ? null
                        : DecimalArithmetic.node(DecimalArithmetic.divide(sum, BigDecimal.valueOf(count)));
                default -> value;
            };
        }
    }
}
