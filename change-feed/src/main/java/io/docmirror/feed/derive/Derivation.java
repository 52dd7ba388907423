package io.docmirror.feed.derive;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One declared derivation: a source container and the target containers the change feed keeps from it.
 *
 * @param name names the derivation's change feed leases and its recorded errors; unique among derivations
 */
public record Derivation(String name, String source, List<TargetMapping> targets) {
    public Derivation {
        requireNonNull(name, "name is null");
        requireNonNull(source, "source is null");
        targets = List.copyOf(targets);
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("Derivation " + name + " has no targets");
        }
    }

    /** The name of the derivation's change feed processor, whose leases hold its checkpoints. */
    public String processorName() {
        return "derive-" + name;
    }
}
