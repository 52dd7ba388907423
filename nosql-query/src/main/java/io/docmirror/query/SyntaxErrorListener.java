package io.docmirror.query;

import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;

/** Turns the first syntax error the lexer or parser meets into a {@link QueryException}, instead of printing it. */
final class SyntaxErrorListener extends BaseErrorListener {
    @Override
    public void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line, int charPositionInLine,
            String message, RecognitionException cause) {
        QueryException error = new QueryException(QueryErrorCode.SYNTAX_ERROR, "Cannot parse the query: " + message,
                line, charPositionInLine + 1);
        if (cause != null) {
            error.initCause(cause);
        }
        throw error;
    }
}
