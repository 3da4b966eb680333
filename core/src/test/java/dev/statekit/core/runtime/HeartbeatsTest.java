package dev.statekit.core.runtime;

import dev.statekit.core.Command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.Lease;
import dev.statekit.test.fixtures.Jobs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lease renewal of the runs a runtime holds, and what a heartbeat tells their workers. */
class HeartbeatsTest {
    final RuntimeParts parts = new RuntimeParts();
    final Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
    final List<String> seenByWorkers = new ArrayList<>();

    /** Claims the next batch as runtime {@code ctx}; each run's worker notes what its cancel signal said. */
    List<Run<Jobs.State, Jobs.Event>> claim(RuntimeContext ctx) {
        List<Run<Jobs.State, Jobs.Event>> runs = RuntimeParts.claim(ctx, r);
        for (Run<Jobs.State, Jobs.Event> run : runs) run.onCancel(() -> seenByWorkers.add(run.id() + " " + run.cancelReason()));
        return runs;
    }

    @Test
    void aHeartbeatRenewsTheLeasesOfTheRunsHeld() {
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        Run<Jobs.State, Jobs.Event> run = claim(ctx).get(0);
        Lease claimed = parts.task(id).lease();
        parts.clock.advance(RuntimeParts.HEARTBEAT);
        Instant now = parts.clock.now();
        new Heartbeats(ctx).run();
        Lease renewed = parts.task(id).lease();
        assertThat(renewed.expiresAt()).isEqualTo(now.plus(RuntimeParts.LEASE)).isAfter(claimed.expiresAt());
        assertThat(renewed.fencingToken()).isEqualTo(claimed.fencingToken());
        assertThat(renewed.owner()).isEqualTo("r");
        assertThat(run.cancelled()).isFalse();
        assertThat(seenByWorkers).isEmpty();
        assertThat(parts.events(id)).as("a renewal writes no history").containsExactly("START");
    }

    @Test
    void aRunWhoseTaskWasTakenAwayIsToldItLostTheLease() {
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        Run<Jobs.State, Jobs.Event> run = claim(ctx).get(0);
        parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.RELEASE, Command.system().reason("operator reset"));
        new Heartbeats(ctx).run();
        assertThat(run.stopReason()).isEqualTo(Run.StopReason.LEASE_LOST);
        assertThat(seenByWorkers).containsExactly(id + " LEASE_LOST");
        assertThat(parts.task(id).lease()).as("nothing is renewed").isNull();
    }

    @Test
    void aRunWhoseLeaseExpiredBeforeTheHeartbeatIsToldItLostTheLease() {
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        Run<Jobs.State, Jobs.Event> run = claim(ctx).get(0);
        Lease claimed = parts.task(id).lease();
        parts.clock.advance(RuntimeParts.LEASE);
        new Heartbeats(ctx).run();
        assertThat(run.stopReason()).isEqualTo(Run.StopReason.LEASE_LOST);
        assertThat(parts.task(id).lease()).as("an expired lease is not revived").isEqualTo(claimed);
    }

    @Test
    void aCancellationRequestedElsewhereIsSignalledAndTheLeaseStillRenewed() {
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        Run<Jobs.State, Jobs.Event> run = claim(ctx).get(0);
        parts.store.requestCancel(id);
        parts.clock.advance(RuntimeParts.HEARTBEAT);
        new Heartbeats(ctx).run();
        assertThat(run.stopReason()).isEqualTo(Run.StopReason.CANCELLED);
        assertThat(seenByWorkers).containsExactly(id + " CANCELLED");
        assertThat(parts.task(id).lease().expiresAt()).isEqualTo(parts.clock.now().plus(RuntimeParts.LEASE));
    }

    @Test
    void onlyTheFirstSignalCounts() {
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        Run<Jobs.State, Jobs.Event> run = claim(ctx).get(0);
        parts.store.requestCancel(id);
        Heartbeats heartbeats = new Heartbeats(ctx);
        heartbeats.run();
        parts.clock.advance(RuntimeParts.LEASE.plusSeconds(1));
        heartbeats.run();
        assertThat(run.stopReason()).isEqualTo(Run.StopReason.CANCELLED);
        assertThat(seenByWorkers).containsExactly(id + " CANCELLED");
    }

    @Test
    void aRenewalTheStoreFailsIsSkippedAndTheOtherRunsAreStillRenewed() {
        parts.batchSize = 2;
        RuntimeContext ctx = parts.started("r", r);
        long failing = parts.enqueue(Jobs.MACHINE, "q");
        long other = parts.enqueue(Jobs.MACHINE, "q");
        List<Run<Jobs.State, Jobs.Event>> runs = claim(ctx);
        Lease before = parts.task(failing).lease();
        parts.spy.failWhen("renew", args -> args.get(0).equals(failing), new IllegalStateException("connection reset"));
        parts.clock.advance(RuntimeParts.HEARTBEAT);
        new Heartbeats(ctx).run();
        assertThat(parts.task(failing).lease()).isEqualTo(before);
        assertThat(parts.task(other).lease().expiresAt()).isEqualTo(parts.clock.now().plus(RuntimeParts.LEASE));
        assertThat(runs).noneMatch(Run::cancelled);
        assertThat(parts.spy.calls("renew")).hasSize(2);
    }

    @Test
    void aHeartbeatWithNothingHeldCallsNoStore() {
        RuntimeContext ctx = parts.started("r", r);
        parts.enqueue(Jobs.MACHINE, "q");
        new Heartbeats(ctx).run();
        assertThat(parts.spy.calls("renew")).isEmpty();
    }
}
