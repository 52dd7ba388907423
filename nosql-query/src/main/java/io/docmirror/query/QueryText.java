package io.docmirror.query;

import org.antlr.v4.runtime.CharStream;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.Interval;

/** The text of a query being built: the source of clause texts and of the positions errors name. */
record QueryText(CharStream characters) {
    /** The text a parse tree node was read from, exactly as written. */
    String of(ParserRuleContext context) {
        return characters.getText(Interval.of(context.getStart().getStartIndex(), context.getStop().getStopIndex()));
    }

    QueryException error(QueryErrorCode code, String reason, ParserRuleContext context) {
        return error(code, reason, context.getStart());
    }

    QueryException error(QueryErrorCode code, String reason, Token token) {
        return new QueryException(code, reason, token.getLine(), token.getCharPositionInLine() + 1);
    }
}
