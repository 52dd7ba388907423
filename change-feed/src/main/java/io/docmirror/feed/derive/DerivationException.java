package io.docmirror.feed.derive;

/**
 * A source document that a target mapping cannot turn into target documents. The runner records it with the source
 * document's id and LSN and goes on with the next change.
 */
public final class DerivationException extends RuntimeException {
    private final String target;
    private final String path;
    private final String rule;

    public DerivationException(String target, String path, String rule) {
        super("Cannot derive a " + target + " document: at " + path + ", " + rule);
        this.target = target;
        this.path = path;
        this.rule = rule;
    }

    public String target() {
        return target;
    }

    /** The JSON path in the source (or produced) document the rule is about. */
    public String path() {
        return path;
    }

    public String rule() {
        return rule;
    }
}
