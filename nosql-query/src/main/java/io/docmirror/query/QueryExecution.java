package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Runs a {@link QueryModel} over documents, a page at a time. */
final class QueryExecution {
    private final QueryModel model;

    QueryExecution(QueryModel model) {
        this.model = model;
    }

    QueryPage page(Iterable<? extends JsonNode> documents, QueryContinuation from, int maxItemCount) {
        // A query without FROM has one row, with no variables: there is nothing to stream.
        return model.needsAllRows() || model.from() == null ? pageOfAll(documents, from, maxItemCount)
                : streamPage(documents, from, maxItemCount);
    }

    /** Filters and projects rows in document order, stopping once the page is full. */
    private QueryPage streamPage(Iterable<? extends JsonNode> documents, QueryContinuation from, int maxItemCount) {
        long remaining = model.maxResults() - from.given();
        // Results are given only once the offset is used up: a continuation that gave any has none left to skip.
        long toSkip = from.given() > 0 ? 0 : model.offset().orElse(0);
        List<JsonNode> results = new ArrayList<>();
        long documentIndex = 0;
        for (JsonNode document : documents) {
            if (documentIndex < from.documents()) {
                documentIndex++;
                continue;
            }
            long skipRows = documentIndex == from.documents() ? from.rows() : 0;
            List<Row> rows = new ArrayList<>();
            model.from().forEachRow(document, rows::add);
            for (int rowIndex = (int) skipRows; rowIndex < rows.size(); rowIndex++) {
                if (remaining - results.size() <= 0) {
                    return new QueryPage(results, Optional.empty());
                }
                if (results.size() == maxItemCount) {
                    QueryContinuation next = new QueryContinuation(documentIndex, rowIndex,
                            from.given() + results.size());
                    return new QueryPage(results, Optional.of(next.token()));
                }
                Row row = rows.get(rowIndex);
                if (!matches(row)) {
                    continue;
                }
                JsonNode result = model.selection().project(row);
                if (result == null) {
                    continue;
                }
                if (toSkip > 0) {
                    toSkip--;
                    continue;
                }
                results.add(result);
            }
            documentIndex++;
        }
        return new QueryPage(results, Optional.empty());
    }

    /** Computes every result, then gives the page the continuation points at. */
    private QueryPage pageOfAll(Iterable<? extends JsonNode> documents, QueryContinuation from, int maxItemCount) {
        List<Row> rows = new ArrayList<>();
        if (model.from() == null) {
            Row only = new Row(Map.of());
            if (matches(only)) {
                rows.add(only);
            }
        } else {
            for (JsonNode document : documents) {
                model.from().forEachRow(document, row -> {
                    if (matches(row)) {
                        rows.add(row);
                    }
                });
            }
        }
        List<JsonNode> results = new ArrayList<>();
        if (model.isGrouped()) {
            for (Group group : groups(rows)) {
                addDefined(results, model.selection().project(group));
            }
        } else {
            if (!model.orderBy().isEmpty()) {
                rows.sort(sortOrder());
            }
            for (Row row : rows) {
                addDefined(results, model.selection().project(row));
            }
        }
        if (model.distinct()) {
            Set<String> seen = new HashSet<>();
            results.removeIf(result -> !seen.add(JsonOrder.key(result)));
        }
        long offset = model.offset().orElse(0);
        long end = Math.min(results.size(), offset + Math.min(model.maxResults(), results.size()));
        List<JsonNode> window = offset >= results.size() ? List.of() : results.subList((int) offset, (int) end);
        return slice(window, from, maxItemCount);
    }

    private static QueryPage slice(List<JsonNode> results, QueryContinuation from, int maxItemCount) {
        int start = (int) Math.min(from.given(), results.size());
        int end = (int) Math.min((long) start + maxItemCount, results.size());
        Optional<String> next = end < results.size()
                ? Optional.of(new QueryContinuation(0, 0, end).token()) : Optional.empty();
        return new QueryPage(results.subList(start, end), next);
    }

    private static void addDefined(List<JsonNode> results, JsonNode result) {
        if (result != null) {
            results.add(result);
        }
    }

    private boolean matches(Row row) {
        return model.where() == null || BinaryOperation.isTrue(model.where().evaluate(row));
    }

    /** The groups in the order their first rows came; without GROUP BY, one group of all rows (maybe none). */
    private List<Group> groups(List<Row> rows) {
        if (model.groupBy().isEmpty()) {
            return List.of(new Group(rows));
        }
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row row : rows) {
            StringBuilder key = new StringBuilder();
            for (Expression expression : model.groupBy()) {
                key.append(JsonOrder.key(expression.evaluate(row))).append('|');
            }
            groups.computeIfAbsent(key.toString(), ignored -> new ArrayList<>()).add(row);
        }
        return groups.values().stream().map(Group::new).toList();
    }

    /** ORDER BY's order: each item in turn, in {@link JsonOrder}, reversed where DESC; ties keep document order. */
    private Comparator<Row> sortOrder() {
        Comparator<Row> order = (left, right) -> 0;
        for (SortItem item : model.orderBy()) {
            Comparator<Row> byItem = (left, right) -> JsonOrder.compare(item.expression().evaluate(left),
                    item.expression().evaluate(right));
            order = order.thenComparing(item.descending() ? byItem.reversed() : byItem);
        }
        return order;
    }
}
