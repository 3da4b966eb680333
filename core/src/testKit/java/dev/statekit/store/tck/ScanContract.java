package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.RenewResult;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on scans over leases and not-before times: expired leases, leases of one owner,
 * due tasks. Every store runs it as {@link StoreContract.Scans}.
 */
abstract class ScanContract extends ContractPart {

    ScanContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void expiredLeasesOfOtherMachinesDoNotFillTheWindowOfTheMachinesAsked() {
        List<Long> others = new ArrayList<>();
        for (int i = 0; i < 3; i++) others.add(create(spec().machine("other").queue("elsewhere")).id());
        TaskRecord ours = create();
        tasksOf(store.claim(new ClaimRequest("other", "elsewhere", List.of(START), OWNER, T0, Duration.ofSeconds(1), 3, 0)));
        claimOne(ours.id(), OWNER, Duration.ofMinutes(1));
        Instant later = T0.plus(HOUR);
        assertThat(ids(store.expiredLeases(later, 3))).as("the oldest expiries are the other machine's").containsExactlyElementsOf(others);
        assertThat(ids(store.expiredLeases(List.of(MACHINE), later, 3))).containsExactly(ours.id());
        assertThat(ids(store.expiredLeases(List.of(MACHINE, "other"), later, 2))).containsExactly(others.get(0), others.get(1));
        assertThat(ids(store.expiredLeases(List.of("nobody"), later, 10))).isEmpty();
        assertThat(store.expiredLeases(List.of(MACHINE), T0, 10)).isEmpty();
    }

    @Test
    public void expiredLeasesAreListedOldestExpiryFirst() {
        TaskRecord a = create();
        TaskRecord b = create();
        TaskRecord c = create();
        TaskRecord d = create();
        TaskRecord other = create(spec().machine("other").queue("elsewhere"));
        claimOne(a.id(), OWNER, HOUR.multipliedBy(2));
        TaskRecord cb = claimOne(b.id(), OWNER, Duration.ofMinutes(1));
        claimOne(c.id(), "worker-2", HOUR);
        TaskRecord cd = claimOne(d.id(), OWNER, Duration.ofSeconds(1));
        applied(release(cd, DONE));
        tasksOf(store.claim(new ClaimRequest("other", "elsewhere", List.of(START), OWNER, T0, Duration.ofMinutes(30), 1, 0)));

        assertThat(store.expiredLeases(T0, 10)).isEmpty();
        assertThat(ids(store.expiredLeases(T0.plus(HOUR), 10))).as("at or before T0 + 1 h")
                .containsExactly(b.id(), other.id(), c.id());
        assertThat(ids(store.expiredLeases(T0.plus(HOUR).minus(1, ChronoUnit.MICROS), 10))).containsExactly(b.id(), other.id());
        assertThat(ids(store.expiredLeases(T0.plus(HOUR), 2))).containsExactly(b.id(), other.id());
        assertThat(ids(store.expiredLeases(T0.plus(HOUR.multipliedBy(5)), 10))).containsExactly(b.id(), other.id(), c.id(), a.id());
        assertThat(store.expiredLeases(T0.plus(HOUR), 10)).first().isEqualTo(get(b.id()));

        assertThat(store.renew(b.id(), leaseOf(cb).fencingToken(), T0.plusSeconds(30), T0.plus(HOUR.multipliedBy(3))))
                .isEqualTo(RenewResult.RENEWED);
        assertThat(ids(store.expiredLeases(T0.plus(HOUR), 10))).containsExactly(other.id(), c.id());
    }

    @Test
    public void leasedByListsTheTasksHeldByOneOwnerInIdOrder() {
        TaskRecord t1 = create();
        TaskRecord t2 = create();
        TaskRecord t3 = create();
        TaskRecord t4 = create();
        claimOne(t1.id(), "worker-a", LEASE);
        claimOne(t2.id(), "worker-a", Duration.ofSeconds(1));
        claimOne(t3.id(), "worker-b", LEASE);
        TaskRecord c4 = claimOne(t4.id(), "worker-a", LEASE);
        applied(release(c4, DONE));
        assertThat(store.leasedBy("worker-a", 10)).as("expired leases are still held")
                .containsExactly(get(t1.id()), get(t2.id()));
        assertThat(ids(store.leasedBy("worker-a", 1))).containsExactly(t1.id());
        assertThat(ids(store.leasedBy("worker-b", 10))).containsExactly(t3.id());
        assertThat(store.leasedBy("worker-c", 10)).isEmpty();
    }

    @Test
    public void dueListsLeaseFreeTasksWhoseNotBeforeTimeHasCome() {
        TaskRecord w1 = create(spec().state(WAITING).notBefore(T0.plus(HOUR)));
        TaskRecord w2 = create(spec().state(WAITING).notBefore(T0.minus(HOUR)));
        TaskRecord w3 = create(spec().state(WAITING).notBefore(T0.plus(HOUR.multipliedBy(2))));
        TaskRecord noTime = create(spec().state(WAITING));
        TaskRecord ready = create(spec().notBefore(T0.minus(HOUR.multipliedBy(2))));
        TaskRecord otherMachine = create(spec().machine("other").state(WAITING).notBefore(T0.minus(HOUR.multipliedBy(2))));
        TaskRecord held = create(spec().priority(9));
        TaskRecord claimed = claimOne(held.id(), OWNER, LEASE);
        TaskRecord waitingHeld = applied(change(claimed, b -> b.state(WAITING).notBefore(T0.minus(HOUR.multipliedBy(3))), null));
        assertThat(waitingHeld.lease()).isNotNull();

        List<String> waiting = List.of(WAITING);
        assertThat(store.due(MACHINE, waiting, T0.plus(HOUR), 10)).as("at or before T0 + 1 h")
                .containsExactly(w2, w1);
        assertThat(ids(store.due(MACHINE, waiting, T0.plus(HOUR).minus(1, ChronoUnit.MICROS), 10))).containsExactly(w2.id());
        assertThat(ids(store.due(MACHINE, waiting, T0.plus(HOUR), 1))).containsExactly(w2.id());
        assertThat(ids(store.due(MACHINE, List.of(WAITING, READY), T0.plus(HOUR), 10))).containsExactly(ready.id(), w2.id(), w1.id());
        assertThat(store.due(MACHINE, waiting, T0.minus(HOUR.multipliedBy(4)), 10)).isEmpty();
        assertThat(ids(store.due(MACHINE, waiting, T0.plus(HOUR.multipliedBy(9)), 10)))
                .as("a task without a not-before time is not due").containsExactly(w2.id(), w1.id(), w3.id())
                .doesNotContain(noTime.id(), otherMachine.id());

        TaskRecord freed = applied(change(waitingHeld, b -> b.lease(null), null));
        assertThat(ids(store.due(MACHINE, waiting, T0, 10))).containsExactly(freed.id(), w2.id());
    }

    @Test
    public void nextDueIsTheEarliestLaterNotBeforeTimeOfLeaseFreeTasks() {
        create(spec().state(WAITING).notBefore(T0.plus(HOUR)));
        create(spec().state(WAITING).notBefore(T0.minus(HOUR)));
        create(spec().state(WAITING).notBefore(T0.plus(HOUR.multipliedBy(2))));
        create(spec().state(WAITING));
        create(spec().notBefore(T0.minus(HOUR.multipliedBy(2))));
        create(spec().machine("other").state(WAITING).notBefore(T0.minus(Duration.ofMinutes(150))));
        TaskRecord claimed = claimOne(create(spec().priority(9)).id(), OWNER, LEASE);
        applied(change(claimed, b -> b.state(WAITING).notBefore(T0.minus(HOUR.multipliedBy(3))), null));

        List<String> waiting = List.of(WAITING);
        assertThat(store.nextDue(MACHINE, waiting, T0)).isEqualTo(T0.plus(HOUR));
        assertThat(store.nextDue(MACHINE, waiting, T0.plus(HOUR))).as("strictly after now").isEqualTo(T0.plus(HOUR.multipliedBy(2)));
        assertThat(store.nextDue(MACHINE, waiting, T0.plus(HOUR.multipliedBy(2)))).isNull();
        assertThat(store.nextDue(MACHINE, waiting, T0.minus(HOUR.multipliedBy(4)))).isEqualTo(T0.minus(HOUR));
        assertThat(store.nextDue(MACHINE, List.of(WAITING, READY), T0.minus(HOUR.multipliedBy(4))))
                .isEqualTo(T0.minus(HOUR.multipliedBy(2)));
        assertThat(store.nextDue("other", waiting, T0.minus(HOUR.multipliedBy(4)))).isEqualTo(T0.minus(Duration.ofMinutes(150)));
        assertThat(store.nextDue(MACHINE, List.of(DONE), T0.minus(HOUR.multipliedBy(4)))).isNull();
    }
}
