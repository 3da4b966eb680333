package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on claims: rules, order by priority then FIFO, not-before times, paused and
 * limited queues, leases and fencing tokens. Every store runs it as {@link StoreContract.Claims}.
 */
abstract class ClaimContract extends ContractPart {

    ClaimContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void aClaimStartsTheTaskLeasesItAndWritesOneSystemEntry() {
        TaskRecord t = create(spec().attributes(Attributes.of("phase", "queued")).payload("p").priority(3)
                .notBefore(T0.minus(HOUR)));
        Instant now = T0.plusSeconds(90);
        List<TaskRecord> claimed = tasksOf(store.claim(new ClaimRequest(MACHINE, QUEUE, List.of(START), "worker-ı", now,
                Duration.ofSeconds(45), 5, 0)));
        assertThat(ids(claimed)).containsExactly(t.id());
        TaskRecord c = claimed.get(0);
        assertThat(get(t.id())).isEqualTo(c);
        assertThat(c.state()).isEqualTo(RUNNING);
        assertThat(c.version()).isEqualTo(1);
        assertThat(c.attempts()).isEqualTo(1);
        assertThat(c.notBefore()).isNull();
        assertThat(c.updatedAt()).isEqualTo(now);
        Lease lease = leaseOf(c);
        assertThat(lease.owner()).isEqualTo("worker-ı");
        assertThat(lease.expiresAt()).isEqualTo(now.plusSeconds(45));
        assertThat(c.toBuilder().state(READY).lease(null).attempts(0).notBefore(T0.minus(HOUR)).updatedAt(t.updatedAt())
                .version(0).build()).as("everything else is kept").isEqualTo(t);
        List<HistoryEntry> history = store.history(t.id());
        assertThat(history).hasSize(1);
        HistoryEntry e = history.get(0);
        assertThat(e.taskId()).isEqualTo(t.id());
        assertThat(e.version()).isEqualTo(1);
        assertThat(e.from()).isEqualTo(READY);
        assertThat(e.to()).isEqualTo(RUNNING);
        assertThat(e.event()).isEqualTo("START");
        assertThat(e.source()).isEqualTo(TriggerSource.SYSTEM);
        assertThat(e.actor()).isEqualTo("worker-ı");
        assertThat(e.at()).isEqualTo(now);
        assertThat(e.commandKey()).isNull();
        assertThat(store.leased(QUEUE)).isEqualTo(1);
        assertThat(claim(5)).as("nothing left").isEmpty();
    }

    @Test
    public void aClaimEffectComputesTheAttributesFromTheTaskBeforeTheClaim() {
        ClaimRule effectful = new ClaimRule(READY, "START", RUNNING, before -> before.attributes()
                .with("phase", "started-from-" + before.state())
                .with("attempt", Integer.toString(before.attempts() + 1))
                .with("version", Long.toString(before.version())));
        TaskRecord t = create(spec().attributes(Attributes.of("kept", "yes")));
        ClaimRequest request = new ClaimRequest(MACHINE, QUEUE, List.of(effectful), OWNER, T0, LEASE, 1, 0);
        TaskRecord first = tasksOf(store.claim(request)).get(0);
        assertThat(first.attributes()).isEqualTo(Attributes.of("kept", "yes", "phase", "started-from-READY",
                "attempt", "1", "version", "0"));
        assertThat(get(t.id())).isEqualTo(first);
        TaskRecord again = applied(release(first, READY));
        TaskRecord second = tasksOf(store.claim(request)).get(0);
        assertThat(second.attributes()).isEqualTo(Attributes.of("kept", "yes", "phase", "started-from-READY",
                "attempt", "2", "version", Long.toString(again.version())));
        // a rule without an effect keeps the attributes
        TaskRecord plain = create(spec().attributes(Attributes.of("kept", "too")));
        assertThat(claim(1).get(0).attributes()).isEqualTo(plain.attributes());
    }

    @Test
    public void eachClaimableStateIsStartedByItsOwnRule() {
        TaskRecord ready = create();
        TaskRecord retry = create(spec().state("RETRY").priority(1));
        TaskRecord waiting = create(spec().state(WAITING).priority(2));
        ClaimRequest request = new ClaimRequest(MACHINE, QUEUE,
                List.of(START, new ClaimRule("RETRY", "RESTART", "RECOVERING")), OWNER, T0, LEASE, 5, 0);
        List<TaskRecord> claimed = tasksOf(store.claim(request));
        assertThat(ids(claimed)).containsExactly(retry.id(), ready.id());
        assertThat(claimed.get(0).state()).isEqualTo("RECOVERING");
        assertThat(store.history(retry.id())).singleElement().satisfies(e -> {
            assertThat(e.event()).isEqualTo("RESTART");
            assertThat(e.from()).isEqualTo("RETRY");
            assertThat(e.to()).isEqualTo("RECOVERING");
        });
        assertThat(store.history(ready.id())).singleElement().satisfies(e -> assertThat(e.event()).isEqualTo("START"));
        assertThat(get(waiting.id())).isEqualTo(waiting);
    }

    @Test
    public void tasksAreClaimedByPriorityThenFifo() {
        TaskRecord a = create(spec().priority(0));
        TaskRecord b = create(spec().priority(5));
        TaskRecord c = create(spec().priority(5));
        TaskRecord d = create(spec().priority(10));
        TaskRecord e = create(spec().priority(0));
        TaskRecord f = create(spec().priority(-3));
        assertThat(ids(claim(2))).containsExactly(d.id(), b.id());
        assertThat(ids(claim(10))).containsExactly(c.id(), a.id(), e.id(), f.id());
    }

    @Test
    public void aNotBeforeTimeIsRespected() {
        TaskRecord later = create(spec().priority(5).notBefore(T0.plus(HOUR)));
        TaskRecord now = create();
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 5, 0))))).containsExactly(now.id());
        assertThat(tasksOf(store.claim(claimOf(OWNER, T0.plus(HOUR).minus(1, ChronoUnit.MICROS), LEASE, 5, 0)))).isEmpty();
        assertThat(get(later.id())).isEqualTo(later);
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0.plus(HOUR), LEASE, 5, 0))))).containsExactly(later.id());
    }

    @Test
    public void aPausedQueueGivesNothing() {
        TaskRecord t = create();
        store.pauseQueue(QUEUE, "maintenance");
        assertThat(claim(5)).isEmpty();
        assertThat(get(t.id())).isEqualTo(t);
        assertThat(store.history(t.id())).isEmpty();
        store.resumeQueue(QUEUE);
        assertThat(ids(claim(5))).containsExactly(t.id());
    }

    @Test
    public void aTaskThatHoldsALeaseIsNotClaimed() {
        TaskRecord t = create();
        TaskRecord claimed = claimOne(t.id(), OWNER, LEASE);
        // back in a claimable state while keeping the lease
        TaskRecord held = applied(move(claimed, READY, null));
        assertThat(held.lease()).isEqualTo(claimed.lease());
        assertThat(claim(5)).isEmpty();
        assertThat(tasksOf(store.claim(claimOf("worker-2", T0.plus(HOUR), LEASE, 5, 0)))).as("even once the lease expired").isEmpty();
        assertThat(store.peek(claimOf(OWNER, T0, LEASE, 5, 0))).isEmpty();
        assertThat(get(t.id())).isEqualTo(held);
        TaskRecord free = applied(release(held, READY));
        assertThat(ids(claim(5))).containsExactly(free.id());
    }

    @Test
    public void onlyTheRequestedMachineQueueAndStatesAreClaimed() {
        TaskRecord otherMachine = create(spec().machine("other").priority(9));
        TaskRecord otherQueue = create(spec().queue("elsewhere").priority(9));
        TaskRecord otherState = create(spec().state(WAITING).priority(9));
        TaskRecord match = create();
        assertThat(ids(claim(10))).containsExactly(match.id());
        assertThat(get(otherMachine.id())).isEqualTo(otherMachine);
        assertThat(get(otherQueue.id())).isEqualTo(otherQueue);
        assertThat(get(otherState.id())).isEqualTo(otherState);
    }

    @Test
    public void fencingTokensStrictlyIncreaseAcrossClaims() {
        TaskRecord a = create();
        TaskRecord b = create();
        TaskRecord c = create(spec().machine("other").queue("elsewhere"));
        long ta = leaseOf(claimOne(a.id(), OWNER, LEASE)).fencingToken();
        long tb = leaseOf(claimOne(b.id(), OWNER, LEASE)).fencingToken();
        assertThat(tb).isGreaterThan(ta);
        TaskRecord otherClaim = tasksOf(store.claim(new ClaimRequest("other", "elsewhere", List.of(START), "worker-2", T0, LEASE, 1, 0))).get(0);
        assertThat(otherClaim.id()).isEqualTo(c.id());
        long tc = leaseOf(otherClaim).fencingToken();
        assertThat(tc).isGreaterThan(tb);
        applied(release(get(a.id()), READY));
        TaskRecord again = claimOne(a.id(), OWNER, LEASE);
        assertThat(leaseOf(again).fencingToken()).isGreaterThan(tc);
        assertThat(again.attempts()).isEqualTo(2);
        assertThat(again.version()).isEqualTo(3);
        assertUnbrokenChain(a.id(), READY);
    }

    @Test
    public void theConcurrencyLimitCapsTheTasksOfTheQueueThatHoldALease() {
        TaskRecord foreign = create(spec().machine("other"));
        List<Long> ours = new ArrayList<>();
        for (int i = 0; i < 5; i++) ours.add(create().id());
        assertThat(store.setConcurrency(QUEUE, 3).concurrency()).isEqualTo(3);
        // another machine's task on the same queue counts, even once its lease expired
        tasksOf(store.claim(new ClaimRequest("other", QUEUE, List.of(START), "worker-2", T0, Duration.ofSeconds(1), 1, 0)));
        assertThat(get(foreign.id()).lease()).isNotNull();
        assertThat(store.leased(QUEUE)).isEqualTo(1);
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0.plus(HOUR), LEASE, 5, 0))))).containsExactly(ours.get(0), ours.get(1));
        assertThat(store.leased(QUEUE)).isEqualTo(3);
        assertThat(claim(5)).isEmpty();
        applied(release(get(ours.get(0)), DONE));
        assertThat(store.leased(QUEUE)).isEqualTo(2);
        assertThat(ids(claim(5))).containsExactly(ours.get(2));
        assertThat(claim(5)).isEmpty();
        store.setConcurrency(QUEUE, 0);
        assertThat(ids(claim(5))).as("0 means no limit").containsExactly(ours.get(3), ours.get(4));
        assertThat(store.leased(QUEUE)).isEqualTo(5);
        assertThat(store.leased("elsewhere")).isZero();
    }

    @Test
    public void anExpiredLeaseOnALimitedQueueIsRecoveredBeforeAnythingElseOfTheQueueIsClaimed() {
        store.setConcurrency(QUEUE, 1);
        TaskRecord held = create();
        TaskRecord next = create();
        TaskRecord claimed = claimOne(held.id(), OWNER, Duration.ofSeconds(1));
        Instant later = T0.plus(HOUR);
        assertThat(ids(store.expiredLeases(later, 10))).containsExactly(held.id());
        assertThat(tasksOf(store.claim(claimOf("worker-2", later, LEASE, 5, 0)))).as("the expired lease still counts").isEmpty();
        assertThat(store.leased(QUEUE)).isEqualTo(1);
        assertThat(get(next.id())).isEqualTo(next);
        applied(release(claimed, DONE));
        assertThat(ids(tasksOf(store.claim(claimOf("worker-2", later, LEASE, 5, 0))))).containsExactly(next.id());
    }

    @Test
    public void aClaimIsNeverStampedBeforeTheTasksLastChange() {
        TaskRecord late = create();
        TaskRecord plain = create();
        Instant changedAt = T0.plus(HOUR);
        TaskRecord touched = late.toBuilder().attributes(Attributes.of("touched", "yes")).updatedAt(changedAt).version(1).build();
        applied(new Change(0, touched, new HistoryEntry(late.id(), 1, READY, READY, "TOUCH", TriggerSource.USER, "ayşe",
                null, changedAt, null)));
        // a claimer whose clock was read before the change reached the store
        Instant now = T0.plusSeconds(30);
        List<Claimed> claimed = store.claim(claimOf(OWNER, now, LEASE, 5, 0));
        assertThat(ids(tasksOf(claimed))).containsExactly(late.id(), plain.id());
        TaskRecord c = claimed.get(0).task();
        assertThat(c.updatedAt()).isEqualTo(changedAt);
        assertThat(claimed.get(0).entry().at()).isEqualTo(changedAt);
        assertThat(leaseOf(c).expiresAt()).as("the lease runs from the claim's time").isEqualTo(now.plus(LEASE));
        assertThat(get(late.id())).isEqualTo(c);
        assertThat(assertUnbrokenChain(late.id(), READY)).extracting(HistoryEntry::at).containsExactly(changedAt, changedAt);
        TaskRecord p = claimed.get(1).task();
        assertThat(p.updatedAt()).as("a task changed before the claim's time is stamped with it").isEqualTo(now);
        assertThat(store.history(plain.id())).singleElement().satisfies(e -> assertThat(e.at()).isEqualTo(now));
        assertThat(get(plain.id())).isEqualTo(p);
    }

    @Test
    public void aTaskMovedToTheFrontIsClaimedFirst() {
        TaskRecord a = create();
        TaskRecord b = create();
        TaskRecord c = create();
        long front = store.nextSequence(true);
        assertThat(front).isLessThan(a.sequence()).isLessThan(b.sequence()).isLessThan(c.sequence());
        long front2 = store.nextSequence(true);
        assertThat(front2).isLessThan(front);
        assertThat(store.reorder(c.id(), c.priority(), front)).isTrue();
        long back = store.nextSequence(false);
        assertThat(back).isGreaterThan(c.sequence());
        assertThat(store.reorder(a.id(), a.priority(), back)).isTrue();
        TaskRecord d = create();
        assertThat(d.sequence()).as("created after a sequence was handed out").isGreaterThan(back);
        assertThat(get(c.id()).version()).isZero();
        assertThat(store.history(c.id())).isEmpty();
        assertThat(ids(claim(4))).containsExactly(c.id(), b.id(), a.id(), d.id());
    }

    @Test
    public void aReorderedPriorityChangesTheClaimOrder() {
        TaskRecord a = create();
        TaskRecord b = create();
        assertThat(store.reorder(b.id(), 4, b.sequence())).isTrue();
        assertThat(ids(claim(2))).containsExactly(b.id(), a.id());
    }
}
