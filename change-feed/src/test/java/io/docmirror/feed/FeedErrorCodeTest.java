package io.docmirror.feed;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures of a feed's follower are retriable, and the code the store's and the change feed's failures get: a
 * Kafka publisher that died is started again, or not, by these codes.
 */
class FeedErrorCodeTest {
    @Test
    void onlyTransientCausesAreRetriable() {
        assertThat(Arrays.stream(FeedErrorCode.values()).filter(FeedErrorCode::retriable))
                .containsExactlyInAnyOrder(FeedErrorCode.STORE_UNAVAILABLE, FeedErrorCode.BROKER_UNAVAILABLE,
                        FeedErrorCode.CONTAINER_GONE, FeedErrorCode.WRITE_CONFLICT);
    }

    @Test
    void aStoreThatDoesNotAnswerIsRetriedAndAContainerThatIsGoneIsFollowedAnew() {
        assertThat(FeedErrorCode.of(new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot reach the store")))
                .isEqualTo(FeedErrorCode.STORE_UNAVAILABLE);
        assertThat(FeedErrorCode.of(new StoreException(StoreErrorCode.NOT_FOUND, "no container orders")))
                .isEqualTo(FeedErrorCode.CONTAINER_GONE);
        assertThat(FeedErrorCode.of(new StoreException(StoreErrorCode.BAD_REQUEST, "a bad request")))
                .isEqualTo(FeedErrorCode.STORE_REFUSED);
    }

    @Test
    void aFeedPositionTheLogNoLongerHoldsIsLostForGood() {
        FeedErrorCode lost = FeedErrorCode.of(new ChangeFeedException(StoreErrorCode.GONE, "retention has passed"));

        assertThat(lost).isEqualTo(FeedErrorCode.POSITION_LOST);
        assertThat(lost.retriable()).isFalse();
    }

    @Test
    void aDerivedWriteIsCodedByTheStoresAnswer() {
        assertThat(FeedErrorCode.ofStoreStatus(503)).isEqualTo(FeedErrorCode.STORE_UNAVAILABLE);
        assertThat(FeedErrorCode.ofStoreStatus(412)).isEqualTo(FeedErrorCode.WRITE_CONFLICT);
        assertThat(FeedErrorCode.ofStoreStatus(403)).isEqualTo(FeedErrorCode.STORE_REFUSED);
        assertThat(FeedErrorCode.ofStoreStatus(500)).isEqualTo(FeedErrorCode.INTERNAL_ERROR);
    }

    @Test
    void aFeedExceptionKeepsItsCodeAndAnythingElseIsAnInternalError() {
        assertThat(FeedErrorCode.of(new FeedException(FeedErrorCode.PUBLISHER_FENCED, "Another publisher took over")))
                .isEqualTo(FeedErrorCode.PUBLISHER_FENCED);
        assertThat(FeedErrorCode.of(new IllegalArgumentException("a bug"))).isEqualTo(FeedErrorCode.INTERNAL_ERROR);
    }
}
