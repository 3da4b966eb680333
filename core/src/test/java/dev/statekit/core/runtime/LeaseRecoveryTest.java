package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.internal.Kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Recovery of tasks whose holder is gone, by each machine's recovery policy. */
class LeaseRecoveryTest {
    static final Duration PAST_THE_LEASE = RuntimeParts.LEASE.plusSeconds(1);

    final RuntimeParts parts = new RuntimeParts();

    static Registration<Jobs.State, Jobs.Event> on(Machine<Jobs.State, Jobs.Event> machine) {
        return RuntimeParts.registration(machine, "q", c -> WorkResult.success());
    }

    /** Creates a task of {@code r} and has a runtime named {@code owner} claim it; returns its id. */
    long claimedBy(String owner, Registration<Jobs.State, Jobs.Event> r) {
        long id = parts.enqueue(r.machine, "q");
        List<Run<Jobs.State, Jobs.Event>> runs = RuntimeParts.claim(parts.started(owner, r), r);
        assertThat(runs).extracting(Run::id).containsExactly(id);
        return id;
    }

    LeaseRecovery recoveryOf(String owner, Registration<?, ?>... registrations) {
        return new LeaseRecovery(parts.started(owner, registrations));
    }

    @Test
    void aLeaseThatHasNotExpiredIsLeftAlone() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        long id = claimedBy("dead", r);
        parts.clock.advance(RuntimeParts.LEASE.minusSeconds(1));
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.events(id)).containsExactly("START");
    }

    @Test
    void requeueRecoveryReleasesTheTaskSayingWhoseLeaseExpired() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        long id = claimedBy("dead", r);
        Lease lease = parts.task(id).lease();
        parts.clock.advance(PAST_THE_LEASE);
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        TaskRecord t = parts.task(id);
        assertThat(t.state()).isEqualTo("QUEUED");
        assertThat(t.lease()).isNull();
        assertThat(parts.events(id)).containsExactly("START", "RELEASE");
        HistoryEntry last = parts.last(id);
        assertThat(last.actor()).isEqualTo("alive");
        assertThat(last.reason()).isEqualTo("lease " + lease.fencingToken() + " of dead expired at " + lease.expiresAt());
    }

    @Test
    void failRecoveryFailsTheTaskWithARetryableLeaseExpiredError() {
        Registration<Jobs.State, Jobs.Event> r = on(RuntimeParts.PLAIN);
        long id = claimedBy("dead", r);
        parts.clock.advance(PAST_THE_LEASE);
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        TaskRecord t = parts.task(id);
        assertThat(t.state()).isEqualTo("FAILED");
        assertThat(t.lease()).isNull();
        assertThat(t.lastError().code()).isEqualTo(Settlement.LEASE_EXPIRED);
        assertThat(t.lastError().retryable()).isTrue();
        assertThat(t.lastError().message()).contains("of dead expired at");
        assertThat(parts.events(id)).containsExactly("START", "FAIL");
    }

    @Test
    void interruptRecoveryWithAutomaticRetryPutsTheTaskBackAtTheFrontOnceThenFailsIt() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.machine("interruptible", true, true));
        List<String> atInterrupt = new ArrayList<>();
        parts.engine.subscribe((machine, task, entry) -> {
            if (entry.event().equals("INTERRUPT")) atInterrupt.add(task.lease().owner() + " leased " + parts.store.leased("q"));
        });
        long id = claimedBy("dead", r);
        long waiting = parts.enqueue(r.machine, "q");
        parts.clock.advance(PAST_THE_LEASE);
        LeaseRecovery recovery = recoveryOf("alive", r);
        recovery.recoverExpired(parts.clock.now());
        TaskRecord back = parts.task(id);
        assertThat(atInterrupt).as("the interruption keeps the queue occupied").containsExactly("dead leased 1");
        assertThat(back.state()).isEqualTo("QUEUED");
        assertThat(back.lease()).isNull();
        assertThat(back.attributes().get(TaskRuntime.ATTR_INTERRUPTIONS)).isEqualTo("1");
        assertThat(back.sequence()).as("ahead of the task that waited").isLessThan(parts.task(waiting).sequence());
        assertThat(parts.events(id)).containsExactly("START", "INTERRUPT", "RECOVER");
        assertThat(parts.last(id).reason()).isEqualTo("automatic recovery after an interruption");

        assertThat(RuntimeParts.claim(parts.started("dead again", r), r)).extracting(Run::id).containsExactly(id);
        parts.clock.advance(PAST_THE_LEASE);
        recovery.recoverExpired(parts.clock.now());
        TaskRecord failed = parts.task(id);
        assertThat(failed.state()).isEqualTo("FAILED");
        assertThat(failed.lease()).isNull();
        assertThat(failed.lastError().code()).isEqualTo(Settlement.INTERRUPTED);
        assertThat(parts.events(id)).containsExactly("START", "INTERRUPT", "RECOVER", "START", "INTERRUPT", "GIVE_UP");
        assertThat(parts.last(id).reason()).isEqualTo("interrupted again after its automatic retry");
    }

    @Test
    void interruptRecoveryWithoutAutomaticRetryFailsTheTask() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.machine("fragile", true, false));
        long id = claimedBy("dead", r);
        parts.clock.advance(PAST_THE_LEASE);
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        TaskRecord t = parts.task(id);
        assertThat(t.state()).isEqualTo("FAILED");
        assertThat(t.lease()).isNull();
        assertThat(t.lastError().code()).isEqualTo(Settlement.INTERRUPTED);
        assertThat(t.attributes().get(TaskRuntime.ATTR_INTERRUPTIONS)).isNull();
        assertThat(parts.events(id)).containsExactly("START", "INTERRUPT", "GIVE_UP");
        assertThat(parts.last(id).reason()).isEqualTo("interrupted; automatic recovery is off");
    }

    @Test
    void anInterruptedTaskLeftWithItsLeaseByACrashedRecovererIsFinishedFromWhereItStood() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.machine("interruptible", true, true);
        Registration<Jobs.State, Jobs.Event> r = on(m);
        long id = claimedBy("dead", r);
        parts.clock.advance(PAST_THE_LEASE);
        assertThat(Kernel.of(parts.engine).fire(m, id, Jobs.Event.INTERRUPT, Command.system().actor("crashed recoverer"),
                (cur, next) -> next.lease(cur.lease())).isApplied()).isTrue();
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
        assertThat(parts.task(id).lease()).isNull();
        assertThat(parts.events(id)).containsExactly("START", "INTERRUPT", "RECOVER");
    }

    @Test
    void aCancellationRequestedBeforeTheCrashWinsOverTheRecoveryPolicy() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.machine("interruptible", true, true));
        long id = claimedBy("dead", r);
        parts.store.requestCancel(id);
        parts.clock.advance(PAST_THE_LEASE);
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        assertThat(parts.task(id).state()).isEqualTo("CANCELED");
        assertThat(parts.task(id).lease()).isNull();
        assertThat(parts.events(id)).containsExactly("START", "CANCEL");
        assertThat(parts.last(id).reason()).startsWith("cancellation requested; lease ");
    }

    @Test
    void aRestartUnderTheSameOwnerRecoversWhatItHeldWithoutWaitingForTheLeases() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        long mine = claimedBy("r1", r);
        long theirs = claimedBy("r2", r);
        recoveryOf("r1", r).healRestart(false);
        assertThat(parts.task(mine).state()).isEqualTo("QUEUED");
        assertThat(parts.task(mine).lease()).isNull();
        assertThat(parts.last(mine).reason()).isEqualTo("restart of r1");
        assertThat(parts.task(theirs).state()).isEqualTo("RUNNING");
        assertThat(parts.task(theirs).lease().owner()).isEqualTo("r2");
    }

    @Test
    void theSoleOwnerOfAStoreRecoversEveryLeaseItFindsAtStartWithoutWaiting() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        Registration<Jobs.State, Jobs.Event> foreign = on(Jobs.machine("foreign", false, false));
        long mine = claimedBy("node-a", r);
        long earlier = claimedBy("node-a-before-its-rename", r);
        long unserved = claimedBy("other", foreign);
        recoveryOf("node-a", r).healRestart(true);
        assertThat(parts.task(mine).state()).isEqualTo("QUEUED");
        assertThat(parts.last(mine).reason()).isEqualTo("restart of node-a");
        assertThat(parts.task(earlier).state()).as("no lease has expired yet").isEqualTo("QUEUED");
        assertThat(parts.task(earlier).lease()).isNull();
        assertThat(parts.last(earlier).reason()).contains("of node-a-before-its-rename found at the start of the sole owner node-a");
        assertThat(parts.task(unserved).state()).as("a machine this runtime does not serve").isEqualTo("RUNNING");
        assertThat(parts.events(unserved)).containsExactly("START");
    }

    @Test
    void aLocalRunWhoseLeaseExpiredIsToldItLostIt() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        RuntimeContext ctx = parts.started("r1", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        Run<Jobs.State, Jobs.Event> run = RuntimeParts.claim(ctx, r).get(0);
        List<String> seenByWorker = new ArrayList<>();
        run.onCancel(() -> seenByWorker.add(run.cancelReason()));
        parts.clock.advance(PAST_THE_LEASE);
        new LeaseRecovery(ctx).recoverExpired(parts.clock.now());
        assertThat(run.stopReason()).isEqualTo(Run.StopReason.LEASE_LOST);
        assertThat(seenByWorker).containsExactly("LEASE_LOST");
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
    }

    @Test
    void aTaskOfAMachineThisRuntimeDoesNotServeIsLeftToOthers() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        Registration<Jobs.State, Jobs.Event> foreign = on(Jobs.machine("foreign", false, false));
        long id = claimedBy("dead", foreign);
        parts.clock.advance(PAST_THE_LEASE);
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.events(id)).containsExactly("START");
    }

    @Test
    void aTaskClaimedAnewAfterTheScanIsNotTakenFromItsNewHolder() {
        Registration<Jobs.State, Jobs.Event> r = on(Jobs.MACHINE);
        long id = claimedBy("dead", r);
        parts.clock.advance(PAST_THE_LEASE);
        parts.spy.afterNext("expiredLeases", () -> {
            parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.RELEASE, Command.system().reason("operator reset"));
            RuntimeParts.claim(parts.started("next", r), r);
        });
        recoveryOf("alive", r).recoverExpired(parts.clock.now());
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.task(id).lease().owner()).isEqualTo("next");
        assertThat(parts.events(id)).containsExactly("START", "RELEASE", "START");
    }

    @Test
    void expiredLeasesOfMachinesNobodyHereServesDoNotHideTheOnesItServes() {
        Registration<Jobs.State, Jobs.Event> served = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
        Registration<Jobs.State, Jobs.Event> foreign = RuntimeParts.registration(Jobs.machine("foreign", false, false), "f",
                c -> WorkResult.success());
        parts.batchSize = RuntimeContext.SCAN_BATCH;
        RuntimeContext dead = parts.started("dead", served, foreign);
        for (int i = 0; i < RuntimeContext.SCAN_BATCH; i++) parts.enqueue(foreign.machine, "f");
        assertThat(RuntimeParts.claim(dead, foreign)).hasSize(RuntimeContext.SCAN_BATCH);
        parts.clock.advance(java.time.Duration.ofSeconds(1));
        long mine = parts.enqueue(Jobs.MACHINE, "q");
        RuntimeParts.claim(dead, served);
        parts.clock.advance(RuntimeParts.LEASE.plusSeconds(5));
        new LeaseRecovery(parts.started("alive", served)).recoverExpired(parts.clock.now());
        assertThat(parts.task(mine).state()).isEqualTo("QUEUED");
    }
}
