package io.docmirror.cli;

/** Exit statuses of the docmirror command (README, "Exit codes"). */
final class ExitCodes {
    static final int OK = 0;
    static final int FAILURE = 1;
    static final int USAGE = 2;
    /** The import finished but some lines were rejected (see the rejects file). */
    static final int SOME_REJECTED = 3;

    private ExitCodes() {
    }
}
