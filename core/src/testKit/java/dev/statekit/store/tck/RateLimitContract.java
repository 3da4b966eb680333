package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.Claimed;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on rate limits: at most N starts per period for a queue or per
 * key within it, measured with the claims' time, and key holds that pass over only their key.
 * Every store runs it as {@link StoreContract.RateLimits}.
 */
abstract class RateLimitContract extends ContractPart {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    RateLimitContract(StoreContract contract) {
        super(contract);
    }

    private List<TaskRecord> claimAt(Instant now, int max) {
        return tasksOf(store.claim(claimOf(OWNER, now, LEASE, max, 0)));
    }

    private long createWithModel(String model) {
        return create(spec().attributes(Attributes.of("model", model))).id();
    }

    @Test
    public void nStartsPerPeriodThenNoneUntilTheWindowMoves() {
        for (int i = 0; i < 6; i++) create();
        assertThat(store.setRateLimit(QUEUE, RateLimit.perQueue(2, MINUTE)).rateLimit()).isEqualTo(RateLimit.perQueue(2, MINUTE));
        assertThat(claimAt(T0, 5)).hasSize(2);
        assertThat(claimAt(T0.plusSeconds(30), 5)).as("the window still holds the two starts").isEmpty();
        assertThat(claimAt(T0.plus(MINUTE).minusMillis(1), 5)).as("a millisecond before the window moves").isEmpty();
        assertThat(claimAt(T0.plus(MINUTE), 5)).as("the starts at T0 left the window").hasSize(2);
        assertThat(claimAt(T0.plusSeconds(90), 1)).isEmpty();
        assertThat(claimAt(T0.plusSeconds(120), 1)).hasSize(1);
        assertThat(claimAt(T0.plusSeconds(130), 5)).as("the window slides: one start in it, one room").hasSize(1);
    }

    @Test
    public void aClaimWhoseTimeLagsAnotherClaimsStillCountsTheStartsOfItsWindow() {
        for (int i = 0; i < 5; i++) create();
        store.setRateLimit(QUEUE, RateLimit.perQueue(2, MINUTE));
        assertThat(claimAt(T0, 5)).hasSize(2);
        assertThat(claimAt(T0.plusSeconds(90), 1)).as("the starts at T0 left this claim's window").hasSize(1);
        assertThat(claimAt(T0.plusSeconds(50), 5)).as("a claim whose time was read before the one at T0+90s: its window holds"
                + " the two starts at T0").isEmpty();
        assertThat(claimAt(T0.plusSeconds(149), 5)).as("one start, at T0+90s, in the window").hasSize(1);
    }

    @Test
    public void aClaimLaggingTheLatestStartByMoreThanAPeriodIsMadeAPeriodBeforeIt() {
        long a1 = createWithModel("a");
        long a2 = createWithModel("a");
        store.setRateLimit(QUEUE, RateLimit.perKey(2, MINUTE, "model"));
        assertThat(ids(claimAt(T0, 5))).containsExactlyInAnyOrder(a1, a2);
        long b1 = createWithModel("b");
        assertThat(ids(claimAt(T0.plusSeconds(180), 5))).as("a start of key b, three periods on").containsExactly(b1);
        long a3 = createWithModel("a");
        long a4 = createWithModel("a");
        List<Claimed> late = store.claim(claimOf(OWNER, T0.plusSeconds(30), LEASE, 5, 0));
        assertThat(ids(tasksOf(late))).containsExactlyInAnyOrder(a3, a4);
        for (Claimed k : late) {
            assertThat(k.entry().at()).as("a claim whose time lags the start at T0+180s by two periods is made a period"
                    + " before it, outside the window of the starts at T0 the store may have forgotten")
                    .isEqualTo(T0.plusSeconds(120));
        }
        long a5 = createWithModel("a");
        assertThat(claimAt(T0.plusSeconds(179), 5)).as("the window holds the two starts at T0+120s").isEmpty();
        assertThat(ids(claimAt(T0.plusSeconds(180), 5))).as("they left it").containsExactly(a5);
    }

    @Test
    public void eachKeyHasItsOwnRoom() {
        long a1 = createWithModel("a");
        createWithModel("a");
        long b1 = createWithModel("b");
        createWithModel("b");
        long none = create().id();
        store.setRateLimit(QUEUE, RateLimit.perKey(1, MINUTE, "model"));
        assertThat(ids(claimAt(T0, 10))).as("one of each key; no attribute is the empty key").containsExactlyInAnyOrder(a1, b1, none);
        assertThat(claimAt(T0.plusSeconds(1), 10)).isEmpty();
        assertThat(claimAt(T0.plus(MINUTE), 10)).hasSize(2);
    }

    @Test
    public void aHeldKeyPassesOverOnlyItsKey() {
        long a1 = createWithModel("a");
        long b1 = createWithModel("b");
        long b2 = createWithModel("b");
        long a2 = createWithModel("a");
        store.setRateLimit(QUEUE, RateLimit.perKey(100, MINUTE, "model"));
        store.holdKey(QUEUE, "a", T0.plusSeconds(10));
        store.holdKey(QUEUE, "a", T0.plusSeconds(5));   // an earlier end changes nothing
        assertThat(store.queue(QUEUE).heldUntil()).isEqualTo(T0.plusSeconds(10));
        assertThat(ids(claimAt(T0, 10))).containsExactly(b1, b2);
        assertThat(claimAt(T0.plusSeconds(9), 10)).isEmpty();
        assertThat(ids(claimAt(T0.plusSeconds(10), 10))).as("the hold ends at its instant").containsExactly(a1, a2);
    }

    @Test
    public void withoutAKeyAttributeAHoldOfTheEmptyKeyHoldsTheWholeQueue() {
        long t1 = create().id();
        store.holdKey(QUEUE, RateLimit.NO_KEY, T0.plus(MINUTE));
        assertThat(store.queue(QUEUE).rateLimited()).isTrue();
        assertThat(claimAt(T0, 5)).isEmpty();
        assertThat(claimAt(T0.plusSeconds(59), 5)).isEmpty();
        assertThat(ids(claimAt(T0.plus(MINUTE), 5))).containsExactly(t1);
        store.holdKey(QUEUE, "other", T0.plus(HOUR));
        long t2 = create().id();
        assertThat(ids(claimAt(T0.plus(MINUTE), 5))).as("a hold of another key holds nothing here").containsExactly(t2);
    }

    @Test
    public void theLimitIsPartOfTheQueueRecordAndCanBeRemoved() {
        for (int i = 0; i < 4; i++) create();
        RateLimit limit = RateLimit.perKey(1, MINUTE, "model");
        store.setRateLimit(QUEUE, limit);
        QueueRecord paused = store.pauseQueue(QUEUE, "maintenance");
        assertThat(paused.rateLimit()).isEqualTo(limit);
        assertThat(store.resumeQueue(QUEUE).rateLimit()).isEqualTo(limit);
        assertThat(store.setConcurrency(QUEUE, 10).rateLimit()).isEqualTo(limit);
        assertThat(claimAt(T0, 4)).hasSize(1);
        assertThat(store.setRateLimit(QUEUE, null).rateLimit()).isNull();
        assertThat(store.queue(QUEUE).rateLimit()).isNull();
        assertThat(claimAt(T0, 4)).hasSize(3);
    }

    @Test
    public void concurrentClaimersNeverStartMoreThanTheLimit() throws Exception {
        int limit = 5;
        for (int i = 0; i < 40; i++) create(spec().attributes(Attributes.of("model", i % 2 == 0 ? "a" : "b")));
        store.setRateLimit(QUEUE, RateLimit.perKey(limit, HOUR, "model"));
        AtomicInteger started = new AtomicInteger();
        concurrently(4, thread -> {
            for (int round = 0; round < 20; round++) {
                started.addAndGet(tasksOf(store.claim(claimOf("claimer-" + thread, T0.plusMillis(round), LEASE, 3, 0))).size());
            }
        });
        assertThat(started).as("starts of both keys in the hour").hasValue(2 * limit);
        assertThat(claimAt(T0.plus(HOUR).plusMillis(20), 40)).as("the next hour, after every start left the window").hasSize(2 * limit);
    }
}
