package dev.statekit.core.runtime;

import dev.statekit.core.Chunk;
import dev.statekit.core.Machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What one registration claims, waits on and times, and how a runtime finds the registration of a task. */
class RegistrationsTest {
    static final Worker<Jobs.State> WORKER = ctx -> WorkResult.success();
    static final Machine<Jobs.State, Jobs.Event> OTHER = Jobs.machine("other", false, false);

    final RuntimeParts parts = new RuntimeParts();

    TaskRecord taskOn(Machine<Jobs.State, Jobs.Event> machine, String queue) {
        return parts.task(parts.enqueue(machine, queue));
    }

    @Test
    void aRegistrationClaimsByItsRunPolicyAndNamesItsWaitingAndTimedStates() {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", WORKER);
        assertThat(r.rules).extracting(ClaimRule::from, ClaimRule::event, ClaimRule::to)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("QUEUED", "START", "RUNNING"));
        assertThat(r.claimStates).containsExactly("QUEUED");
        assertThat(r.waitStates).containsExactly("RETRYING");
        assertThat(r.timedStates).containsExactlyInAnyOrder("QUEUED", "RETRYING");

        Registration<Jobs.State, Jobs.Event> plain = RuntimeParts.registration(RuntimeParts.PLAIN, "p", WORKER);
        assertThat(plain.waitStates).isEmpty();
        assertThat(plain.timedStates).containsExactly("QUEUED");
    }

    @Test
    void aRegistrationClaimsOnlyItsClaimableStatesOnItsOwnQueue() {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", WORKER);
        assertThat(r.claims("q", "QUEUED")).isTrue();
        assertThat(r.claims("other", "QUEUED")).isFalse();
        assertThat(r.claims("q", "RETRYING")).isFalse();
        assertThat(r.claims("q", "RUNNING")).isFalse();
    }

    @Test
    void aPreconditionNeedsABlockedState() {
        QueueOptions gated = QueueOptions.defaults().precondition(t -> null);
        assertThatThrownBy(() -> new Registration<>(RuntimeParts.PLAIN, "p", WORKER, gated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue p").hasMessageContaining("machine plain").hasMessageContaining("blocked state");
        assertThat(new Registration<>(Jobs.MACHINE, "q", WORKER, gated).options.precondition()).isNotNull();
    }

    @Test
    void registrationsKeepTheirOrderAndGiveTheFirstOfEachMachine() {
        Registration<Jobs.State, Jobs.Event> jobsA = RuntimeParts.registration(Jobs.MACHINE, "a", WORKER);
        Registration<Jobs.State, Jobs.Event> other = RuntimeParts.registration(OTHER, "a", WORKER);
        Registration<Jobs.State, Jobs.Event> jobsB = RuntimeParts.registration(Jobs.MACHINE, "b", WORKER);
        Registrations regs = new Registrations(List.of(jobsA, other, jobsB));
        assertThat(regs.all()).containsExactly(jobsA, other, jobsB);
        assertThat(regs.size()).isEqualTo(3);
        assertThat(regs.onePerMachine()).containsExactly(jobsA, other);
    }

    @Test
    void aTaskIsServedByItsMachineOnItsQueueElseByItsMachinesFirstRegistration() {
        Registration<Jobs.State, Jobs.Event> jobsA = RuntimeParts.registration(Jobs.MACHINE, "a", WORKER);
        Registration<Jobs.State, Jobs.Event> otherB = RuntimeParts.registration(OTHER, "b", WORKER);
        Registration<Jobs.State, Jobs.Event> jobsB = RuntimeParts.registration(Jobs.MACHINE, "b", WORKER);
        Registrations regs = new Registrations(List.of(jobsA, otherB, jobsB));
        assertThat(regs.of(taskOn(Jobs.MACHINE, "b"))).isSameAs(jobsB);
        assertThat(regs.of(taskOn(Jobs.MACHINE, "a"))).isSameAs(jobsA);
        assertThat(regs.of(taskOn(Jobs.MACHINE, "elsewhere"))).isSameAs(jobsA);
        assertThat(regs.of(taskOn(OTHER, "a"))).as("its machine's only registration, on another queue").isSameAs(otherB);
        assertThat(regs.of(taskOn(RuntimeParts.PLAIN, "a"))).as("a machine nobody serves").isNull();
    }

    @Test
    void aTaskIsClaimableOnlyInAClaimStateOnAQueueItsMachineIsServedOn() {
        Registrations regs = new Registrations(List.of(RuntimeParts.registration(Jobs.MACHINE, "a", WORKER),
                RuntimeParts.registration(OTHER, "b", WORKER)));
        TaskRecord queuedOnA = taskOn(Jobs.MACHINE, "a");
        assertThat(regs.claimable(Jobs.MACHINE.name(), queuedOnA)).isTrue();
        assertThat(regs.claimable(Jobs.MACHINE.name(), taskOn(Jobs.MACHINE, "b"))).as("its machine is not served on b").isFalse();
        assertThat(regs.claimable(OTHER.name(), taskOn(OTHER, "b"))).isTrue();
        assertThat(regs.claimable(RuntimeParts.PLAIN.name(), taskOn(RuntimeParts.PLAIN, "a"))).isFalse();
        TaskRecord running = queuedOnA.toBuilder().state("RUNNING").build();
        assertThat(regs.claimable(Jobs.MACHINE.name(), running)).isFalse();
    }

    @Test
    void aMachineWithoutARunPolicyIsRefusedAsAnIllegalArgument() {
        assertThatThrownBy(() -> new Registration<>(Chunk.MACHINE, "q", c -> WorkResult.success(), QueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("declares no run policy");
    }
}
