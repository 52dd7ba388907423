package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.json.NumberFidelity;
import io.docmirror.query.grammar.NoSqlParser;
import org.antlr.v4.runtime.ParserRuleContext;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Builds a {@link QueryModel} from a parse tree and checks it as Cosmos DB does: SELECT * needs exactly one FROM
 * source, a grouped query selects only GROUP BY expressions and aggregates, aggregates stay out of WHERE, GROUP BY and
 * ORDER BY. Constructs docmirror does not run are refused with their position.
 */
final class QueryBuilder {
    private final QueryText text;
    private final ExpressionBuilder expressions;

    QueryBuilder(Map<String, JsonNode> parameters, QueryText text) {
        this.text = text;
        this.expressions = new ExpressionBuilder(parameters, text);
    }

    QueryModel build(NoSqlParser.QueryContext tree) {
        NoSqlParser.SelectQueryContext query = tree.selectQuery();
        FromClause from = query.fromClause() == null ? null : from(query.fromClause());
        NoSqlParser.SelectClauseContext select = query.selectClause();
        Selection selection = selection(select.selection(), from);
        Expression where = null;
        if (query.whereClause() != null) {
            where = scalar(query.whereClause().expression(), "WHERE");
        }
        List<Expression> groupBy = new ArrayList<>();
        List<String> groupByTexts = new ArrayList<>();
        if (query.groupByClause() != null) {
            for (NoSqlParser.ExpressionContext item : query.groupByClause().expression()) {
                groupBy.add(scalar(item, "GROUP BY"));
                groupByTexts.add(text.of(item));
            }
        }
        List<SortItem> orderBy = query.orderByClause() == null ? List.of() : orderBy(query.orderByClause());
        QueryModel model = new QueryModel(select.DISTINCT() != null,
                select.topClause() == null ? OptionalLong.empty() : OptionalLong.of(count(select.topClause().count(), "TOP")),
                selection, from, where, groupBy, orderBy,
                query.offsetLimitClause() == null ? OptionalLong.empty()
                        : OptionalLong.of(count(query.offsetLimitClause().count(0), "OFFSET")),
                query.offsetLimitClause() == null ? OptionalLong.empty()
                        : OptionalLong.of(count(query.offsetLimitClause().count(1), "LIMIT")),
                from == null ? null : text.of(query.fromClause()).substring("FROM".length()).strip(),
                where == null ? null : text.of(query.whereClause().expression()),
                groupByTexts);
        checkGrouping(model, query);
        return model;
    }

    private FromClause from(NoSqlParser.FromClauseContext context) {
        NoSqlParser.FromSourceContext source = context.fromSource();
        FromClause from;
        if (source instanceof NoSqlParser.FromSubqueryContext subquery) {
            throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: a subquery in FROM is not supported",
                    subquery);
        } else if (source instanceof NoSqlParser.FromIteratorContext iterator) {
            String inputName = firstName(iterator.expression());
            expressions.declare(inputName);
            Expression input = expressions.visit(iterator.expression());
            expressions.forget(inputName);
            from = new FromClause(iterator.name().getText(), inputName, input, true, List.of());
        } else {
            NoSqlParser.FromContainerContext container = (NoSqlParser.FromContainerContext) source;
            NoSqlParser.ContainerPathContext path = container.containerPath();
            String inputName = path.ROOT() != null ? "root" : path.name().getText();
            Expression input = new Variable(inputName);
            String lastName = inputName;
            for (NoSqlParser.PathStepContext step : path.pathStep()) {
                JsonNode key = step.propertyName() != null ? TextNode.valueOf(step.propertyName().getText())
                        : step.STRING() != null ? TextNode.valueOf(ExpressionBuilder.unquote(step.STRING().getText()))
                        : NumberFidelity.SPELLING.numberNode(step.NUMBER().getText());
                input = new PropertyAccess(input, new Literal(key));
                lastName = key.isTextual() ? key.textValue() : lastName;
            }
            String alias = container.name() != null ? container.name().getText() : lastName;
            from = new FromClause(alias, inputName, input, false, List.of());
        }
        expressions.declare(from.alias());
        List<FromClause.Join> joins = new ArrayList<>();
        Set<String> aliases = new HashSet<>(Set.of(from.alias()));
        for (NoSqlParser.JoinClauseContext join : context.joinClause()) {
            if (join instanceof NoSqlParser.JoinSubqueryContext subquery) {
                throw text.error(QueryErrorCode.NOT_SUPPORTED,
                        "Cannot run the query: a subquery in JOIN is not supported", subquery);
            }
            NoSqlParser.JoinIteratorContext iterator = (NoSqlParser.JoinIteratorContext) join;
            String alias = iterator.name().getText();
            if (!aliases.add(alias)) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: alias " + alias
                        + " is bound twice", iterator.name());
            }
            joins.add(new FromClause.Join(alias, scalar(iterator.expression(), "JOIN")));
            expressions.declare(alias);
        }
        return new FromClause(from.alias(), from.inputName(), from.input(), from.iterates(), joins);
    }

    /** The identifier an iterator's expression starts from ({@code c} in {@code t IN c.items}). */
    private String firstName(ParserRuleContext context) {
        ParserRuleContext node = context;
        while (node.getChildCount() > 0 && node.getChild(0) instanceof ParserRuleContext child) {
            node = child;
        }
        return node.getStart().getText().equalsIgnoreCase("root") ? "root" : node.getStart().getText();
    }

    private Selection selection(NoSqlParser.SelectionContext context, FromClause from) {
        if (context instanceof NoSqlParser.SelectStarContext) {
            if (from == null) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: SELECT * needs a FROM clause",
                        context);
            }
            if (!from.joins().isEmpty()) {
                throw text.error(QueryErrorCode.INVALID_QUERY,
                        "Cannot run the query: SELECT * needs exactly one FROM source, and JOIN adds more", context);
            }
            return new Selection.Star(from.alias());
        }
        if (context instanceof NoSqlParser.SelectValueContext value) {
            return new Selection.Value(expressions.visit(value.expression()), text.of(value.expression()));
        }
        List<Selection.Items.Item> items = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int unnamed = 0;
        for (NoSqlParser.SelectItemContext item : ((NoSqlParser.SelectListContext) context).selectItem()) {
            Expression expression = expressions.visit(item.expression());
            String name;
            if (item.name() != null) {
                name = item.name().getText();
            } else if (expression instanceof PropertyAccess property && property.propertyName() != null) {
                name = property.propertyName();
            } else if (expression instanceof Variable variable) {
                name = variable.name();
            } else {
                name = "$" + ++unnamed;
            }
            if (!names.add(name)) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: the select list names "
                        + name + " twice; give one an alias with AS", item);
            }
            items.add(new Selection.Items.Item(name, expression, text.of(item.expression())));
        }
        return new Selection.Items(items);
    }

    private List<SortItem> orderBy(NoSqlParser.OrderByClauseContext context) {
        List<SortItem> items = new ArrayList<>();
        for (NoSqlParser.SortItemContext item : context.sortItem()) {
            Expression expression = scalar(item.expression(), "ORDER BY");
            if (!isPropertyPath(expression)) {
                throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: ORDER BY "
                        + text.of(item.expression()) + " is not a property path (such as c.name), which is all "
                        + "ORDER BY sorts on", item);
            }
            items.add(new SortItem(expression, item.DESC() != null, text.of(item.expression())));
        }
        return items;
    }

    private static boolean isPropertyPath(Expression expression) {
        if (expression instanceof Variable) {
            return true;
        }
        return expression instanceof PropertyAccess property && property.key() instanceof Literal
                && isPropertyPath(property.target());
    }

    /** An expression of a clause that takes no aggregate. */
    private Expression scalar(NoSqlParser.ExpressionContext context, String clause) {
        Expression expression = expressions.visit(context);
        if (expression.containsAggregate()) {
            throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: aggregates are not allowed in "
                    + clause, context);
        }
        return expression;
    }

    private long count(NoSqlParser.CountContext context, String clause) {
        JsonNode value = context.NUMBER() != null
                ? NumberFidelity.SPELLING.numberNode(context.NUMBER().getText())
                : expressions.parameter(context.PARAMETER().getSymbol());
        if (value.isNumber()) {
            BigDecimal number = DecimalArithmetic.valueOf(value);
            boolean whole = number.signum() == 0 || number.stripTrailingZeros().scale() <= 0;
            if (whole && number.signum() >= 0 && number.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0) {
                return number.longValueExact();
            }
        }
        throw text.error(context.PARAMETER() != null ? QueryErrorCode.INVALID_PARAMETER : QueryErrorCode.INVALID_QUERY,
                "Cannot run the query: " + clause + " takes a whole number from 0 to " + Integer.MAX_VALUE + ", not "
                        + value, context);
    }

    private void checkGrouping(QueryModel model, NoSqlParser.SelectQueryContext query) {
        if (!model.isGrouped()) {
            return;
        }
        NoSqlParser.SelectionContext selection = query.selectClause().selection();
        if (model.selection() instanceof Selection.Star) {
            throw text.error(QueryErrorCode.INVALID_QUERY,
                    "Cannot run the query: SELECT * cannot be grouped; select the GROUP BY expressions", selection);
        }
        if (!model.orderBy().isEmpty()) {
            throw text.error(QueryErrorCode.NOT_SUPPORTED,
                    "Cannot run the query: ORDER BY together with GROUP BY or aggregates is not supported",
                    query.orderByClause());
        }
        if (model.distinct()) {
            throw text.error(QueryErrorCode.NOT_SUPPORTED,
                    "Cannot run the query: DISTINCT together with GROUP BY or aggregates is not supported",
                    query.selectClause());
        }
        List<NoSqlParser.ExpressionContext> selected = selection instanceof NoSqlParser.SelectValueContext value
                ? List.of(value.expression())
                : ((NoSqlParser.SelectListContext) selection).selectItem().stream()
                        .map(NoSqlParser.SelectItemContext::expression).toList();
        List<Expression> selectedExpressions = model.selection().expressions();
        for (int index = 0; index < selectedExpressions.size(); index++) {
            if (!selectedExpressions.get(index).isGroupInvariant(model.groupBy())) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: "
                        + text.of(selected.get(index)) + " is neither an aggregate nor a GROUP BY expression",
                        selected.get(index));
            }
        }
    }
}
