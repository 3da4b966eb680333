package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.StateCount;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on counts by state: tasks by machine, queue and state, with their leases and
 * since when they were ready. Every store runs it as {@link StoreContract.StateCounts}.
 */
abstract class StateCountContract extends ContractPart {

    StateCountContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void anEmptyStoreCountsNothing() {
        assertThat(store.stateCounts(T0)).isEmpty();
    }

    @Test
    public void tasksAreCountedByMachineQueueAndStateWithTheirLeases() {
        TaskRecord a = create();
        TaskRecord b = create();
        TaskRecord c = create();
        create(spec().queue("other"));
        create(spec().machine("chunk"));
        assertThat(ids(claim(2))).containsExactly(a.id(), b.id());
        TaskRecord done = applied(release(get(b.id()), DONE));

        assertThat(store.stateCounts(T0.plus(HOUR))).containsExactly(
                new StateCount("chunk", QUEUE, READY, 1, 0, T0),
                new StateCount(MACHINE, "other", READY, 1, 0, T0),
                new StateCount(MACHINE, QUEUE, DONE, 1, 0, done.updatedAt()),
                new StateCount(MACHINE, QUEUE, READY, 1, 0, c.updatedAt()),
                new StateCount(MACHINE, QUEUE, RUNNING, 1, 1, null));
    }

    @Test
    public void everyTaskOfAStateIsCountedAndAnExpiredLeaseStillCountsAsLeased() {
        for (int i = 0; i < 7; i++) create();
        claim(3);
        Instant afterExpiry = T0.plus(LEASE).plus(HOUR);
        assertThat(store.stateCounts(afterExpiry)).containsExactly(
                new StateCount(MACHINE, QUEUE, READY, 4, 0, T0),
                new StateCount(MACHINE, QUEUE, RUNNING, 3, 3, null));
    }

    @Test
    public void theOldestReadyTaskIsTheEarliestToBecomeReadyAmongThoseWhoseTimeHasCome() {
        Instant early = T0.minusSeconds(60);
        create(spec().createdAt(early).notBefore(T0.plusSeconds(15)));      // ready at T0 + 15 s, though created first
        TaskRecord plain = create();                                        // ready at T0
        create(spec().createdAt(early).notBefore(T0.plus(HOUR)));           // not yet
        create(spec().queue("late").createdAt(early).notBefore(T0.plusSeconds(30)));
        create(spec().queue("past").createdAt(early).notBefore(early.minusSeconds(30)));

        assertThat(store.stateCounts(T0.plusSeconds(20))).containsExactly(
                new StateCount(MACHINE, "late", READY, 1, 0, null),
                new StateCount(MACHINE, "past", READY, 1, 0, early),
                new StateCount(MACHINE, QUEUE, READY, 3, 0, plain.updatedAt()));
        assertThat(store.stateCounts(T0.plusSeconds(30)).get(0))
                .as("a not-before time later than the last change is when the task became ready")
                .isEqualTo(new StateCount(MACHINE, "late", READY, 1, 0, T0.plusSeconds(30)));
    }

    @Test
    public void aClaimTellsSinceWhenEachTaskItTookWasReady() {
        store.setConcurrency(QUEUE, 0);         // a queue row without a limit, and a queue with a limit, claim differently
        store.setConcurrency("limited", 5);
        Instant early = T0.minusSeconds(60);
        for (String queue : List.of(QUEUE, "limited")) {
            TaskRecord scheduled = create(spec().queue(queue).createdAt(early).notBefore(T0.minusSeconds(30)));
            TaskRecord plain = create(spec().queue(queue).createdAt(early));
            TaskRecord moved = applied(move(create(spec().queue(queue).state(WAITING).createdAt(early)), READY, null));
            List<Claimed> claimed = store.claim(new ClaimRequest(MACHINE, queue, List.of(START), OWNER, T0, LEASE, 10, 0));
            Map<Long, Instant> ready = new HashMap<>();
            for (Claimed c : claimed) ready.put(c.task().id(), c.readySince());
            assertThat(ready).as("queue %s", queue).containsOnly(
                    Map.entry(scheduled.id(), T0.minusSeconds(30)),
                    Map.entry(plain.id(), early),
                    Map.entry(moved.id(), early.plusSeconds(1)));
        }
    }
}
