package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The groups of a grouped query (GROUP BY, or aggregates without it), fed its matching rows one at a time. Groups
 * are told apart by their GROUP BY values as DISTINCT tells values apart ({@link JsonOrder#key}: numbers by value),
 * and come in the order their first rows came. Without GROUP BY there is one group, there even over no rows. At most
 * {@link NoSqlQuery#MAX_GROUPS} groups are held: past that the query is refused, not the server's memory exhausted.
 */
final class Grouping {
    private final List<Expression> groupBy;
    private final List<AggregateCall> calls;
    private final Map<String, Group> groups = new LinkedHashMap<>();

    Grouping(QueryModel model) {
        this.groupBy = model.groupBy();
        Set<AggregateCall> found = new LinkedHashSet<>();
        model.selection().expressions().forEach(expression -> collectAggregates(expression, found));
        this.calls = List.copyOf(found);
        if (groupBy.isEmpty()) {
            groups.put("", new Group(groupBy, new JsonNode[0], calls));
        }
    }

    private static void collectAggregates(Expression expression, Set<AggregateCall> found) {
        if (expression instanceof AggregateCall call) {
            found.add(call); // an aggregate holds none (the query's checks refuse COUNT(SUM(x)))
        } else {
            expression.operands().forEach(operand -> collectAggregates(operand, found));
        }
    }

    /**
     * Folds a row into its group, making the group when it is the first row of it.
     *
     * @throws QueryException (LIMIT_EXCEEDED) when the row would make one group more than the limit
     */
    void add(Row row) {
        JsonNode[] values = new JsonNode[groupBy.size()];
        StringBuilder key = new StringBuilder();
        for (int index = 0; index < values.length; index++) {
            values[index] = groupBy.get(index).evaluate(row);
            key.append(JsonOrder.key(values[index])).append('|');
        }
        Group group = groups.get(key.toString());
        if (group == null) {
            if (groups.size() == NoSqlQuery.MAX_GROUPS) {
                throw new QueryException(QueryErrorCode.LIMIT_EXCEEDED, "Cannot run the query: it makes more than "
                        + NoSqlQuery.MAX_GROUPS + " groups, the most a query may hold; narrow it to fewer groups with "
                        + "a filter (WHERE) or to one partition key value");
            }
            group = new Group(groupBy, values, calls);
            groups.put(key.toString(), group);
        }
        group.add(row);
    }

    /** The groups, in the order their first rows came. */
    Collection<Group> groups() {
        return Collections.unmodifiableCollection(groups.values());
    }
}
