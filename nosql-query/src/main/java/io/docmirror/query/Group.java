package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * One group of a grouped query while its rows stream in, holding only what its select list needs: the values of the
 * GROUP BY expressions in its first row, and an {@link Accumulator} per aggregate call. The select list reads rows
 * only through those (the query's checks see to it), so the group is the scope it is evaluated in, and no row is
 * kept. Without GROUP BY there is one group of all rows, maybe none.
 */
final class Group implements Scope {
    private final List<Expression> groupBy;
    private final JsonNode[] groupByValues;
    private final List<AggregateCall> calls;
    private final Accumulator[] accumulators;

    /**
     * @param groupBy the GROUP BY expressions, shared by every group
     * @param groupByValues their values in the group's first row, null for undefined
     * @param calls the aggregate calls of the select list, shared by every group
     */
    Group(List<Expression> groupBy, JsonNode[] groupByValues, List<AggregateCall> calls) {
        this.groupBy = groupBy;
        this.groupByValues = groupByValues;
        this.calls = calls;
        this.accumulators = new Accumulator[calls.size()];
        for (int index = 0; index < accumulators.length; index++) {
            accumulators[index] = new Accumulator(calls.get(index).function());
        }
    }

    /** Folds a row of the group into each aggregate. */
    void add(Row row) {
        for (int index = 0; index < accumulators.length; index++) {
            accumulators[index].add(calls.get(index).argument().evaluate(row));
        }
    }

    @Override
    public JsonNode valueOf(Expression expression) {
        int index = groupBy.indexOf(expression);
        return index >= 0 ? groupByValues[index] : expression.compute(this);
    }

    @Override
    public JsonNode aggregate(AggregateCall call) {
        return accumulators[calls.indexOf(call)].result();
    }

    /** Never asked: a grouped query's select list reads the rows only through GROUP BY expressions and aggregates. */
    @Override
    public JsonNode variable(String name) {
        throw new IllegalStateException("alias " + name + " read outside the GROUP BY expressions of a group");
    }
}
