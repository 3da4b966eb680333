package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ActivityCount;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on activity: history entries counted by machine, queue, time
 * bucket, event and target state within a window. Every store runs it as {@link StoreContract.Activity}.
 */
abstract class ActivityContract extends ContractPart {
    private static final Duration MINUTE = Duration.ofMinutes(1);
    /** The minute of {@link #T0}. */
    private static final Instant M0 = Instant.parse("2031-04-05T13:30:00Z");

    ActivityContract(StoreContract contract) {
        super(contract);
    }

    /** The change of {@code from} to {@code state} by {@code event} at {@code at}, releasing its lease. */
    private static Change entry(TaskRecord from, String state, String event, Instant at) {
        TaskRecord next = from.toBuilder().state(state).lease(null).updatedAt(at).version(from.version() + 1).build();
        return new Change(from.version(), next, new HistoryEntry(from.id(), next.version(), from.state(), state, event,
                TriggerSource.SYSTEM, "tester", null, at, null));
    }

    @Test
    public void anEmptyStoreCountsNothing() {
        assertThat(store.activity(T0.minus(HOUR), T0.plus(HOUR), MINUTE)).isEmpty();
    }

    @Test
    public void entriesAreCountedByMachineQueueBucketEventAndTargetState() {
        TaskRecord a = create();
        create();
        TaskRecord c = create();
        TaskRecord other = create(spec().queue("other"));
        create(spec().machine("chunk"));
        claim(2);                                                    // two START → RUNNING at T0
        applied(entry(get(a.id()), DONE, "FINISH", T0.plusSeconds(1)));
        applied(entry(c, "FAILED", "FAIL", T0.plusSeconds(2)));
        applied(entry(other, DONE, "FINISH", T0.plusSeconds(3)));
        TaskRecord b = store.find(a.id() + 1).orElseThrow();
        applied(entry(b, READY, "RETRY", M0.plus(MINUTE).plusSeconds(5)));      // the next minute

        assertThat(store.activity(T0.minus(HOUR), T0.plus(HOUR), MINUTE)).containsExactly(
                new ActivityCount(MACHINE, "other", "FINISH", DONE, M0, 1),
                new ActivityCount(MACHINE, QUEUE, "FAIL", "FAILED", M0, 1),
                new ActivityCount(MACHINE, QUEUE, "FINISH", DONE, M0, 1),
                new ActivityCount(MACHINE, QUEUE, "START", RUNNING, M0, 2),
                new ActivityCount(MACHINE, QUEUE, "RETRY", READY, M0.plus(MINUTE), 1));
        assertThat(store.activity(T0.minus(HOUR), T0.plus(HOUR), HOUR))
                .as("one bucket of an hour, from the hour")
                .contains(new ActivityCount(MACHINE, QUEUE, "START", RUNNING, Instant.parse("2031-04-05T13:00:00Z"), 2));
    }

    @Test
    public void theWindowTakesEntriesFromItsStartUpToItsEnd() {
        TaskRecord a = create();
        claim(1);                                                        // START at T0
        TaskRecord done = applied(entry(get(a.id()), DONE, "FINISH", T0.plus(MINUTE)));
        TaskRecord b = create(spec().createdAt(T0.plus(MINUTE)));
        applied(entry(b, DONE, "SKIP", T0.plus(MINUTE).plusSeconds(30)));

        assertThat(store.activity(T0.plusSeconds(1), done.updatedAt(), MINUTE))
                .as("the claim is before the window, the end is not in it").isEmpty();
        assertThat(store.activity(T0.plusSeconds(1), done.updatedAt().plusNanos(1000), MINUTE))
                .as("a task changed in the window counts only its entries in the window")
                .containsExactly(new ActivityCount(MACHINE, QUEUE, "FINISH", DONE, M0.plus(MINUTE), 1));
        assertThat(store.activity(T0, T0, MINUTE)).as("an empty window").isEmpty();
        assertThat(store.activity(T0, T0.plus(HOUR), MINUTE)).extracting(ActivityCount::event)
                .containsExactly("START", "FINISH", "SKIP");
    }

    @Test
    public void aWindowThatEndsBeforeItStartsOrABucketOfNoLengthIsRefused() {
        assertThatThrownBy(() -> store.activity(T0, T0.minusSeconds(1), MINUTE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.activity(T0, T0.plus(HOUR), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.activity(T0, T0.plus(HOUR), Duration.ofNanos(1500)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
