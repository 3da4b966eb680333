package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decision of one command on one record, without a store. */
class DeciderTest {
    enum S { READY, RUNNING, DONE }

    enum E { START, FINISH, STOP, FAIL }

    static final Instant T0 = Instant.parse("2026-03-29T01:30:00Z");

    static final Machine<S, E> MACHINE = Machine.builder("decider", S.class, E.class)
            .initial(S.READY)
            .terminal(S.DONE)
            .row(S.READY, E.START, S.RUNNING).by(SYSTEM).effect((t, c, changes) -> changes.put("started", "yes")).add()
            .row(S.RUNNING, E.FINISH, S.DONE).by(SYSTEM)
            .guard("has output", (t, c) -> Verdict.when(c.attributes().containsKey("out"), "NO_OUTPUT", "no output yet")).add()
            .transition(S.RUNNING, E.STOP, S.READY, USER)
            .transition(S.RUNNING, E.FAIL, S.READY, SYSTEM)
            .run(r -> r.claim(S.READY, E.START).success(E.FINISH).fatal(E.FAIL).release(E.FAIL))
            .build();

    static TaskRecord record(String state, long version, Instant updatedAt, Lease lease) {
        return new TaskRecord(7, "decider", 1, state, "q", 0, 5, null, 1, 0, lease, null, null, Attributes.EMPTY, null, null,
                T0, updatedAt, version);
    }

    static Change written(Decision<S> d) {
        assertThat(d).isInstanceOf(Decision.Write.class);
        return ((Decision.Write<S>) d).change();
    }

    static Outcome.Refused<S> refused(Decision<S> d) {
        assertThat(d).isInstanceOf(Decision.Refuse.class);
        return ((Decision.Refuse<S>) d).refused();
    }

    @Test
    void aRowWritesOneVersionAndOneEntryAndEndsTheLeaseWhenLeavingTheRunningStates() {
        TaskRecord running = record("RUNNING", 3, T0, new Lease("w", 11, T0.plusSeconds(30)));
        Change c = written(Decider.decide(MACHINE, running, E.FINISH, Command.system().set("out", "x").error(
                new TaskError("E", "m", false, null)), null, T0.plusSeconds(1)));
        assertThat(c.expectedVersion()).isEqualTo(3);
        assertThat(c.next().version()).isEqualTo(4);
        assertThat(c.next().state()).isEqualTo("DONE");
        assertThat(c.next().lease()).isNull();
        assertThat(c.next().lastError().code()).isEqualTo("E");
        assertThat(c.next().attributes().get("out")).isEqualTo("x");
        assertThat(c.entry().from()).isEqualTo("RUNNING");
        assertThat(c.entry().to()).isEqualTo("DONE");
        assertThat(c.entry().at()).isEqualTo(T0.plusSeconds(1));
        assertThat(c.reorders()).isFalse();
    }

    @Test
    void theEntryIsNeverStampedBeforeTheTasksLastChange() {
        TaskRecord ready = record("READY", 2, T0.plusSeconds(10), null);
        Change c = written(Decider.decide(MACHINE, ready, E.START, Command.system(), null, T0));
        assertThat(c.entry().at()).isEqualTo(T0.plusSeconds(10));
        assertThat(c.next().updatedAt()).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void refusalsCarryTheirCodesAndWriteNothing() {
        Lease lease = new Lease("w", 11, T0.plusSeconds(30));
        TaskRecord running = record("RUNNING", 3, T0, lease);
        assertThat(refused(Decider.decide(MACHINE, running, E.START, Command.system(), null, T0)).code())
                .isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(refused(Decider.decide(MACHINE, running, E.STOP, Command.system(), null, T0)).message())
                .contains("may not be fired by SYSTEM");
        Outcome.Refused<S> guard = refused(Decider.decide(MACHINE, running, E.FINISH, Command.system(), null, T0));
        assertThat(guard.code()).isEqualTo(RefusalCode.GUARD_REFUSED);
        assertThat(guard.reasonCode()).isEqualTo("NO_OUTPUT");
        assertThat(refused(Decider.decide(MACHINE, running, E.FINISH, Command.system().set("out", "x").expectVersion(2), null, T0))
                .code()).isEqualTo(RefusalCode.VERSION_CONFLICT);
        assertThat(refused(Decider.decide(MACHINE, running, E.FINISH, Command.system().set("out", "x").underLease(10), null, T0))
                .code()).isEqualTo(RefusalCode.LEASE_LOST);
        assertThat(refused(Decider.decide(MACHINE, running, E.FINISH, Command.system().set("out", "x").underLease(11), null,
                T0.plusSeconds(30))).message()).contains("expired since");
    }

    @Test
    void anAdjustmentThatMovesTheTaskMakesTheChangeReorder() {
        TaskRecord ready = record("READY", 0, T0, null);
        Change kept = written(Decider.decide(MACHINE, ready, E.START, Command.system(), (cur, next) -> next.retries(2), T0));
        assertThat(kept.reorders()).isFalse();
        assertThat(kept.next().retries()).isEqualTo(2);
        Change moved = written(Decider.decide(MACHINE, ready, E.START, Command.system(), (cur, next) -> next.sequence(-3), T0));
        assertThat(moved.reorders()).isTrue();
        assertThat(moved.next().sequence()).isEqualTo(-3);
    }

    @Test
    void aClaimRuleAppliesTheStartRowsEffectAsAFiredEventWould() {
        ClaimRule rule = Decider.claimRule(MACHINE, S.READY, E.START);
        assertThat(rule.from()).isEqualTo("READY");
        assertThat(rule.to()).isEqualTo("RUNNING");
        TaskRecord ready = record("READY", 0, T0, null);
        Change fired = written(Decider.decide(MACHINE, ready, E.START, Command.system(), null, T0));
        assertThat(rule.attributesOf(ready)).isEqualTo(fired.next().attributes());
        assertThat(rule.attributesOf(ready).asMap()).isEqualTo(Map.of("started", "yes"));
    }
}
