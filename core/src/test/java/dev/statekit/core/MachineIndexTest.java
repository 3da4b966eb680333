package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.TriggerSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The table indexed for the engine: candidate rows, pairs, single targets, named refusals, allowed events. */
class MachineIndexTest {
    enum S { IDLE, BUSY, DONE }

    enum E { GO, STOP, PING }

    static Transition<S, E> row(S from, E event, S to, Set<TriggerSource> sources, String guard) {
        Guard<S> check = guard == null ? null : (t, c) -> Verdict.allow();
        return new Transition<>(from, event, to, sources, guard, check, null, null);
    }

    static final Transition<S, E> GO_ANYONE = row(S.IDLE, E.GO, S.BUSY, Set.of(USER, SYSTEM), null);
    static final Transition<S, E> GO_VIP = row(S.IDLE, E.GO, S.DONE, Set.of(USER), "vip");
    static final Transition<S, E> GO_AT_NIGHT = row(S.IDLE, E.GO, S.BUSY, Set.of(SYSTEM), "night");
    static final Transition<S, E> STOP = row(S.BUSY, E.STOP, S.DONE, Set.of(SYSTEM), null);
    static final Transition<S, E> PING_FIRST = row(S.BUSY, E.PING, S.BUSY, Set.of(USER), "first");
    static final Transition<S, E> PING_AGAIN = row(S.BUSY, E.PING, S.BUSY, Set.of(USER), "again");
    static final Machine.Refusal FINISHED = new Machine.Refusal("FINISHED", "a finished task does not go again");

    final MachineIndex<S, E> index = new MachineIndex<>(S.class, E.class,
            List.of(GO_ANYONE, GO_VIP, GO_AT_NIGHT, STOP, PING_FIRST, PING_AGAIN), Map.of(S.DONE, Map.of(E.GO, FINISHED)));

    @Test
    void candidatesOfASourceAreItsGuardedRowsInTheirOrderThenItsUnguardedOne() {
        assertThat(index.candidates(S.IDLE, E.GO, USER)).containsExactly(GO_VIP, GO_ANYONE);
        assertThat(index.candidates(S.IDLE, E.GO, SYSTEM)).containsExactly(GO_AT_NIGHT, GO_ANYONE);
        assertThat(index.candidates(S.BUSY, E.PING, USER)).containsExactly(PING_FIRST, PING_AGAIN);
        assertThat(index.candidates(S.BUSY, E.STOP, SYSTEM)).containsExactly(STOP);
    }

    @Test
    void thereAreNoCandidatesWhereNoRowLetsTheSourceFire() {
        assertThat(index.candidates(S.BUSY, E.STOP, USER)).isNull();
        assertThat(index.candidates(S.BUSY, E.PING, SYSTEM)).isNull();
        assertThat(index.candidates(S.DONE, E.GO, USER)).isNull();
        assertThat(index.candidates(S.IDLE, E.STOP, SYSTEM)).isNull();
    }

    @Test
    void aPairHoldsEveryRowOfItInDeclarationOrder() {
        assertThat(index.pair(S.IDLE, E.GO)).containsExactly(GO_ANYONE, GO_VIP, GO_AT_NIGHT);
        assertThat(index.pair(S.BUSY, E.STOP)).containsExactly(STOP);
        assertThat(index.pair(S.BUSY, E.GO)).isNull();
    }

    @Test
    void aPairHasATargetOnlyWhenEveryRowOfItLeadsThere() {
        assertThat(index.target(S.IDLE, E.GO)).as("guards choose between BUSY and DONE").isNull();
        assertThat(index.target(S.BUSY, E.STOP)).isEqualTo(S.DONE);
        assertThat(index.target(S.BUSY, E.PING)).isEqualTo(S.BUSY);
        assertThat(index.target(S.DONE, E.GO)).as("a named refusal is no row").isNull();
    }

    @Test
    void namedRefusalsAreFoundByStateAndEvent() {
        assertThat(index.refusal(S.DONE, E.GO)).isEqualTo(FINISHED);
        assertThat(index.refusal(S.DONE, E.STOP)).isNull();
        assertThat(index.refusal(S.IDLE, E.GO)).isNull();
    }

    @Test
    void allowedEventsAreAnsweredPerStateForAnySourceAndForEach() {
        assertThat(index.allowed(S.IDLE)).containsExactly(E.GO);
        assertThat(index.allowed(S.BUSY)).containsExactly(E.STOP, E.PING);
        assertThat(index.allowed(S.DONE)).isEmpty();
        assertThat(index.allowed(S.BUSY, USER)).containsExactly(E.PING);
        assertThat(index.allowed(S.BUSY, SYSTEM)).containsExactly(E.STOP);
        assertThat(index.allowed(S.IDLE, USER)).containsExactly(E.GO);
        assertThat(index.allowed(S.IDLE, SYSTEM)).containsExactly(E.GO);
        assertThatThrownBy(() -> index.allowed(S.BUSY).add(E.GO)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> index.allowed(S.BUSY, USER).remove(E.PING)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aMachineAnswersFromTheSameIndex() {
        Machine<S, E> machine = Machine.builder("indexed", S.class, E.class)
                .initial(S.IDLE)
                .terminal(S.DONE)
                .row(S.IDLE, E.GO, S.DONE).by(USER).guard("vip", (t, c) -> Verdict.allow()).add()
                .transition(S.IDLE, E.GO, S.BUSY, USER, SYSTEM)
                .transition(S.BUSY, E.STOP, S.DONE, SYSTEM)
                .refuse(S.DONE, E.GO, "FINISHED", "a finished task does not go again")
                .build();
        assertThat(machine.candidates(S.IDLE, E.GO, USER)).extracting(Transition::to).containsExactly(S.DONE, S.BUSY);
        assertThat(machine.candidates(S.IDLE, E.GO, SYSTEM)).extracting(Transition::to).containsExactly(S.BUSY);
        assertThat(machine.target(S.IDLE, E.GO)).isNull();
        assertThat(machine.allowedEvents(S.BUSY, USER)).isEmpty();
        assertThat(machine.namedRefusal(S.DONE, E.GO)).isEqualTo(FINISHED);
    }
}
