package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.json.NumberFidelity;
import io.docmirror.query.grammar.NoSqlBaseVisitor;
import io.docmirror.query.grammar.NoSqlParser;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the parse tree of a scalar expression into an {@link Expression}, refusing by name and position what
 * docmirror does not run (subqueries, unknown functions) and what Cosmos DB refuses (an alias not in scope, a
 * missing parameter, an aggregate inside an aggregate).
 */
final class ExpressionBuilder extends NoSqlBaseVisitor<Expression> {
    private static final Set<String> AGGREGATES = Set.of("COUNT", "SUM", "AVG", "MIN", "MAX");

    private final Map<String, JsonNode> parameters;
    private final Set<String> aliases = new HashSet<>();
    private final QueryText text;

    ExpressionBuilder(Map<String, JsonNode> parameters, QueryText text) {
        this.parameters = parameters;
        this.text = text;
    }

    /** Makes an alias visible to the expressions built from now on. */
    void declare(String alias) {
        aliases.add(alias);
    }

    /** Hides an alias again (the document's name in {@code FROM t IN c.items} is visible in that clause only). */
    void forget(String alias) {
        aliases.remove(alias);
    }

    @Override
    public Expression visitExpression(NoSqlParser.ExpressionContext context) {
        Expression condition = visit(context.coalesce());
        if (context.expression().isEmpty()) {
            return condition;
        }
        return new Conditional(condition, visit(context.expression(0)), visit(context.expression(1)));
    }

    @Override
    public Expression visitCoalesce(NoSqlParser.CoalesceContext context) {
        return fold(context.disjunction(), BinaryOperation.Operator.COALESCE);
    }

    @Override
    public Expression visitDisjunction(NoSqlParser.DisjunctionContext context) {
        return fold(context.conjunction(), BinaryOperation.Operator.OR);
    }

    @Override
    public Expression visitConjunction(NoSqlParser.ConjunctionContext context) {
        return fold(context.negation(), BinaryOperation.Operator.AND);
    }

    @Override
    public Expression visitConcatenation(NoSqlParser.ConcatenationContext context) {
        return fold(context.additive(), BinaryOperation.Operator.CONCATENATE);
    }

    private Expression fold(List<? extends ParserRuleContext> operands, BinaryOperation.Operator operator) {
        Expression result = visit(operands.get(0));
        for (int index = 1; index < operands.size(); index++) {
            result = new BinaryOperation(operator, result, visit(operands.get(index)));
        }
        return result;
    }

    @Override
    public Expression visitNegation(NoSqlParser.NegationContext context) {
        if (context.NOT() != null) {
            return new UnaryOperation(UnaryOperation.Operator.NOT, visit(context.negation()));
        }
        return visit(context.predicate());
    }

    @Override
    public Expression visitComparison(NoSqlParser.ComparisonContext context) {
        Expression left = visit(context.concatenation(0));
        if (context.comparisonOperator() == null) {
            return left;
        }
        BinaryOperation.Operator operator = switch (context.comparisonOperator().getText()) {
            case "=" -> BinaryOperation.Operator.EQUAL;
            case "!=", "<>" -> BinaryOperation.Operator.NOT_EQUAL;
            case "<" -> BinaryOperation.Operator.LESS;
            case "<=" -> BinaryOperation.Operator.LESS_OR_EQUAL;
            case ">" -> BinaryOperation.Operator.GREATER;
            default -> BinaryOperation.Operator.GREATER_OR_EQUAL;
        };
        return new BinaryOperation(operator, left, visit(context.concatenation(1)));
    }

    @Override
    public Expression visitInList(NoSqlParser.InListContext context) {
        return new InList(visit(context.concatenation()), build(context.expression()), context.NOT() != null);
    }

    @Override
    public Expression visitBetween(NoSqlParser.BetweenContext context) {
        return new Between(visit(context.concatenation(0)), visit(context.low), visit(context.high),
                context.NOT() != null);
    }

    @Override
    public Expression visitLike(NoSqlParser.LikeContext context) {
        return new Like(visit(context.concatenation(0)), visit(context.pattern),
                context.escape == null ? null : visit(context.escape), context.NOT() != null);
    }

    @Override
    public Expression visitAdditive(NoSqlParser.AdditiveContext context) {
        Expression result = visit(context.multiplicative(0));
        for (int index = 0; index < context.operator.size(); index++) {
            BinaryOperation.Operator operator = context.operator.get(index).getText().equals("+")
                    ? BinaryOperation.Operator.ADD : BinaryOperation.Operator.SUBTRACT;
            result = new BinaryOperation(operator, result, visit(context.multiplicative(index + 1)));
        }
        return result;
    }

    @Override
    public Expression visitMultiplicative(NoSqlParser.MultiplicativeContext context) {
        Expression result = visit(context.unary(0));
        for (int index = 0; index < context.operator.size(); index++) {
            BinaryOperation.Operator operator = switch (context.operator.get(index).getText()) {
                case "*" -> BinaryOperation.Operator.MULTIPLY;
                case "/" -> BinaryOperation.Operator.DIVIDE;
                default -> BinaryOperation.Operator.REMAINDER;
            };
            result = new BinaryOperation(operator, result, visit(context.unary(index + 1)));
        }
        return result;
    }

    @Override
    public Expression visitUnary(NoSqlParser.UnaryContext context) {
        if (context.operator == null) {
            return visit(context.postfix());
        }
        boolean negate = context.operator.getText().equals("-");
        NoSqlParser.UnaryContext operand = context.unary();
        // -0.1 is the literal -0.1, spelled as written, not the negation of 0.1.
        if (negate && operand.postfix() != null && operand.postfix().postfixStep().isEmpty()
                && operand.postfix().primary() instanceof NoSqlParser.LiteralValueContext literal
                && literal.literal().NUMBER() != null) {
            return new Literal(NumberFidelity.SPELLING.numberNode("-" + literal.literal().NUMBER().getText()));
        }
        return new UnaryOperation(negate ? UnaryOperation.Operator.NEGATE : UnaryOperation.Operator.PLUS,
                visit(operand));
    }

    @Override
    public Expression visitPostfix(NoSqlParser.PostfixContext context) {
        Expression result = visit(context.primary());
        for (NoSqlParser.PostfixStepContext step : context.postfixStep()) {
            Expression key = step.propertyName() != null
                    ? new Literal(TextNode.valueOf(step.propertyName().getText())) : visit(step.expression());
            result = new PropertyAccess(result, key);
        }
        return result;
    }

    @Override
    public Expression visitLiteralValue(NoSqlParser.LiteralValueContext context) {
        return new Literal(literal(context.literal()));
    }

    /** The value of a literal; null for {@code undefined}. */
    static JsonNode literal(NoSqlParser.LiteralContext context) {
        if (context.NUMBER() != null) {
            return NumberFidelity.SPELLING.numberNode(context.NUMBER().getText());
        }
        if (context.STRING() != null) {
            return TextNode.valueOf(unquote(context.STRING().getText()));
        }
        if (context.TRUE() != null || context.FALSE() != null) {
            return BooleanNode.valueOf(context.TRUE() != null);
        }
        return context.NULL() != null ? NullNode.getInstance() : null;
    }

    /** The text of a string literal in single or double quotes, its escapes resolved. */
    static String unquote(String quoted) {
        StringBuilder value = new StringBuilder(quoted.length());
        for (int index = 1; index < quoted.length() - 1; index++) {
            char character = quoted.charAt(index);
            if (character != '\\') {
                value.append(character);
                continue;
            }
            char escaped = quoted.charAt(++index);
            switch (escaped) {
                case 'b' -> value.append('\b');
                case 'f' -> value.append('\f');
                case 'n' -> value.append('\n');
                case 'r' -> value.append('\r');
                case 't' -> value.append('\t');
                case 'u', 'U' -> {
                    value.append((char) Integer.parseInt(quoted.substring(index + 1, index + 5), 16));
                    index += 4;
                }
                default -> value.append(escaped);
            }
        }
        return value.toString();
    }

    @Override
    public Expression visitParameter(NoSqlParser.ParameterContext context) {
        return new ParameterReference(context.PARAMETER().getText(), parameter(context.PARAMETER().getSymbol()));
    }

    /** The value supplied for a parameter token. */
    JsonNode parameter(Token token) {
        JsonNode value = parameters.get(token.getText());
        if (value == null) {
            throw text.error(QueryErrorCode.INVALID_PARAMETER, "Cannot run the query: parameter " + token.getText()
                    + " has no value", token);
        }
        return value;
    }

    @Override
    public Expression visitFunctionCall(NoSqlParser.FunctionCallContext context) {
        String name = context.name().getText();
        List<Expression> arguments = context.arguments() == null ? List.of() : build(context.arguments().expression());
        String upperName = name.toUpperCase(Locale.ROOT);
        if (AGGREGATES.contains(upperName)) {
            if (arguments.size() != 1) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: " + upperName
                        + " takes 1 argument, not " + arguments.size(), context);
            }
            if (arguments.get(0).containsAggregate()) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: an aggregate inside "
                        + upperName + " is not allowed", context.arguments());
            }
            return new AggregateCall(AggregateFunction.valueOf(upperName), arguments.get(0),
                    text.of(context.arguments()));
        }
        Optional<SystemFunction> function = SystemFunction.find(name);
        if (function.isEmpty()) {
            throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: function " + name
                    + " is not supported", context);
        }
        if (!function.get().accepts(arguments.size())) {
            throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: " + function.get().name()
                    + " takes " + function.get().arity() + ", not " + arguments.size(), context);
        }
        return new FunctionCall(function.get(), arguments);
    }

    @Override
    public Expression visitQualifiedFunctionCall(NoSqlParser.QualifiedFunctionCallContext context) {
        String name = context.name(0).getText() + "." + context.name(1).getText();
        String what = context.name(0).getText().equalsIgnoreCase("udf") ? "user-defined function " : "function ";
        throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: " + what + name
                + " is not supported", context);
    }

    @Override
    public Expression visitVariable(NoSqlParser.VariableContext context) {
        return variable(context.getText(), context);
    }

    @Override
    public Expression visitRootVariable(NoSqlParser.RootVariableContext context) {
        return variable("root", context);
    }

    private Expression variable(String name, ParserRuleContext context) {
        if (!aliases.contains(name)) {
            throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: identifier " + name
                    + " is not a FROM or JOIN alias in scope", context);
        }
        return new Variable(name);
    }

    @Override
    public Expression visitArrayLiteral(NoSqlParser.ArrayLiteralContext context) {
        return new ArrayConstructor(context.arguments() == null ? List.of() : build(context.arguments().expression()));
    }

    @Override
    public Expression visitObjectLiteral(NoSqlParser.ObjectLiteralContext context) {
        List<ObjectConstructor.Property> properties = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (NoSqlParser.ObjectEntryContext entry : context.objectEntry()) {
            String name = entry.STRING() != null ? unquote(entry.STRING().getText()) : entry.propertyName().getText();
            if (!names.add(name)) {
                throw text.error(QueryErrorCode.INVALID_QUERY, "Cannot run the query: property \"" + name
                        + "\" appears twice in an object literal", entry);
            }
            properties.add(new ObjectConstructor.Property(name, visit(entry.expression())));
        }
        return new ObjectConstructor(properties);
    }

    @Override
    public Expression visitScalarSubquery(NoSqlParser.ScalarSubqueryContext context) {
        throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: subqueries are not supported", context);
    }

    @Override
    public Expression visitExistsSubquery(NoSqlParser.ExistsSubqueryContext context) {
        throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: EXISTS subqueries are not supported",
                context);
    }

    @Override
    public Expression visitArraySubquery(NoSqlParser.ArraySubqueryContext context) {
        throw text.error(QueryErrorCode.NOT_SUPPORTED, "Cannot run the query: ARRAY subqueries are not supported",
                context);
    }

    @Override
    public Expression visitParenthesized(NoSqlParser.ParenthesizedContext context) {
        return visit(context.expression());
    }

    List<Expression> build(List<NoSqlParser.ExpressionContext> contexts) {
        List<Expression> expressions = new ArrayList<>(contexts.size());
        for (NoSqlParser.ExpressionContext context : contexts) {
            expressions.add(visit(context));
        }
        return expressions;
    }
}
