package io.docmirror.feed;

import java.time.Instant;

import static java.util.Objects.requireNonNull;

/** Where a change feed reader starts. */
public sealed interface StartFrom {
    /** The oldest change the log still holds. */
    static StartFrom beginning() {
        return new Beginning();
    }

    /** Only changes made after the reader opens. */
    static StartFrom now() {
        return new Now();
    }

    /** The first change committed at or after {@code time}. */
    static StartFrom pointInTime(Instant time) {
        return new PointInTime(time);
    }

    /** Right after the changes a previous reader had read, as its continuation token says. */
    static StartFrom continuation(String token) {
        return new Continuation(token);
    }

    record Beginning() implements StartFrom {
    }

    record Now() implements StartFrom {
    }

    record PointInTime(Instant time) implements StartFrom {
        public PointInTime {
            requireNonNull(time, "time is null");
        }
    }

    record Continuation(String token) implements StartFrom {
        public Continuation {
            requireNonNull(token, "token is null");
        }
    }
}
