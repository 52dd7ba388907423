package io.docmirror.mirror;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures are retriable, and the code a failure of the parts the mirror stands on gets: the daemon reports
 * what it retries by these codes, not by the failure's type.
 */
class MirrorErrorCodeTest {
    @Test
    void onlyTransientCausesAreRetriable() {
        assertThat(Arrays.stream(MirrorErrorCode.values()).filter(MirrorErrorCode::retriable))
                .containsExactlyInAnyOrder(MirrorErrorCode.SOURCE_UNAVAILABLE, MirrorErrorCode.IO_FAILURE,
                        MirrorErrorCode.COMMIT_CONFLICT, MirrorErrorCode.COMMIT_UNKNOWN,
                        MirrorErrorCode.LIMIT_REACHED, MirrorErrorCode.INTERRUPTED);
    }

    @Test
    void aMirrorExceptionKeepsItsOwnCode() {
        MirrorException locked = new MirrorException(MirrorErrorCode.MIRROR_LOCKED, "Cannot mirror container orders");

        assertThat(MirrorErrorCode.of(locked)).isEqualTo(MirrorErrorCode.MIRROR_LOCKED);
        assertThat(locked.isRetriable()).isFalse();
    }

    @Test
    void aStoreThatDoesNotAnswerIsAnUnavailableSourceAndAStoreThatRefusesIsNotRetriable() {
        assertThat(MirrorErrorCode.of(new StoreException(StoreErrorCode.UNAVAILABLE, "connection refused")))
                .isEqualTo(MirrorErrorCode.SOURCE_UNAVAILABLE);
        assertThat(MirrorErrorCode.of(new StoreException(StoreErrorCode.NOT_FOUND, "no container orders")))
                .isEqualTo(MirrorErrorCode.SOURCE_REFUSED);
    }

    @Test
    void aFeedPositionTheLogNoLongerHoldsIsLost() {
        assertThat(MirrorErrorCode.of(new ChangeFeedException(StoreErrorCode.GONE, "retention has passed")))
                .isEqualTo(MirrorErrorCode.POSITION_LOST);
        assertThat(MirrorErrorCode.of(new ChangeFeedException(StoreErrorCode.BAD_REQUEST, "a token of another "
                + "container"))).isEqualTo(MirrorErrorCode.SOURCE_REFUSED);
    }

    @Test
    void ioErrorsAndCatalogCommitsThatMayPassAreRetriable() {
        assertThat(MirrorErrorCode.of(new UncheckedIOException("disk full", new IOException("No space left"))))
                .isEqualTo(MirrorErrorCode.IO_FAILURE);
        assertThat(MirrorErrorCode.of(new CommitFailedException("table orders moved")))
                .isEqualTo(MirrorErrorCode.COMMIT_CONFLICT);
        assertThat(MirrorErrorCode.of(new CommitStateUnknownException(new RuntimeException("no answer"))))
                .isEqualTo(MirrorErrorCode.COMMIT_UNKNOWN);
    }

    @Test
    void anythingElseIsAnInternalErrorThatIsNotRetriable() {
        assertThat(MirrorErrorCode.of(new IllegalStateException("A batch of orders is open already")))
                .isEqualTo(MirrorErrorCode.INTERNAL_ERROR);
        assertThat(MirrorErrorCode.INTERNAL_ERROR.retriable()).isFalse();
    }
}
