package io.docmirror.flink;

/**
 * A change a writer holds until the committer has decided the schema it needs: its envelope, and the checkpoint
 * whose commit decided it ({@link #UNSET} until the writer's next checkpoint barrier, which hands it to the
 * committer). A Flink POJO in the writer's keyed state.
 */
public final class HeldChange {
    /** Proposed to the committer, in no checkpoint yet. */
    static final long UNSET = -1;

    /** The record's value: the change envelope. */
    public byte[] value;
    public long proposedAt;

    /** For Flink's POJO serializer. */
    public HeldChange() {
    }

    HeldChange(byte[] value, long proposedAt) {
        this.value = value;
        this.proposedAt = proposedAt;
    }
}
