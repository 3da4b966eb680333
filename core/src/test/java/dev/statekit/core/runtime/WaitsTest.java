package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.internal.Kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The run policy's waits: tasks waiting out a not-before time, and when the next one falls due. */
class WaitsTest {
    final RuntimeParts parts = new RuntimeParts();

    static Registration<Jobs.State, Jobs.Event> on(Machine<Jobs.State, Jobs.Event> machine, String queue) {
        return RuntimeParts.registration(machine, queue, c -> WorkResult.success());
    }

    /** Creates a task on {@code queue}, starts it and lets it wait in RETRYING for {@code wait}. */
    long retrying(String queue, Duration wait) {
        long id = parts.enqueue(Jobs.MACHINE, queue);
        Instant until = parts.clock.now().plus(wait);
        parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.START);
        assertThat(Kernel.of(parts.engine).fire(Jobs.MACHINE, id, Jobs.Event.RETRYABLE, Command.system(),
                (cur, next) -> next.notBefore(until)).isApplied()).isTrue();
        return id;
    }

    @Test
    void aTaskWhoseWaitIsOverGoesOnAndOneStillWaitingStays() {
        Waits waits = new Waits(parts.started("r", on(Jobs.MACHINE, "q")));
        long soon = retrying("q", Duration.ofSeconds(5));
        long later = retrying("q", Duration.ofSeconds(20));
        parts.clock.advance(Duration.ofSeconds(4));
        waits.fireDue(parts.clock.now());
        assertThat(parts.task(soon).state()).isEqualTo("RETRYING");
        parts.clock.advance(Duration.ofSeconds(1));
        waits.fireDue(parts.clock.now());
        assertThat(parts.task(soon).state()).as("due at its not-before time").isEqualTo("QUEUED");
        assertThat(parts.task(later).state()).isEqualTo("RETRYING");
        HistoryEntry last = parts.last(soon);
        assertThat(last.event()).isEqualTo("BACKOFF_OVER");
        assertThat(last.reason()).isEqualTo("wait over");
        assertThat(last.actor()).isEqualTo("r");
        assertThat(parts.events(later)).containsExactly("START", "RETRYABLE");
    }

    @Test
    void aMachineServedOnTwoQueuesIsScannedOnceForBoth() {
        Waits waits = new Waits(parts.started("r", on(Jobs.MACHINE, "a"), on(Jobs.MACHINE, "b")));
        long onA = retrying("a", Duration.ofSeconds(1));
        long onB = retrying("b", Duration.ofSeconds(1));
        parts.clock.advance(Duration.ofSeconds(1));
        parts.spy.clear();
        waits.fireDue(parts.clock.now());
        assertThat(parts.task(onA).state()).isEqualTo("QUEUED");
        assertThat(parts.task(onB).state()).isEqualTo("QUEUED");
        assertThat(parts.spy.calls("due")).hasSize(1);
        assertThat(parts.spy.calls("due").get(0).args()).startsWith(Jobs.MACHINE.name(), Set.of("RETRYING"));
    }

    @Test
    void aMachineWithoutWaitsIsNotScanned() {
        Waits waits = new Waits(parts.started("r", on(RuntimeParts.PLAIN, "q")));
        waits.fireDue(parts.clock.now());
        assertThat(parts.spy.calls("due")).isEmpty();
    }

    @Test
    void aTaskThatWaitsAgainAfterTheScanIsNotWokenEarly() {
        Waits waits = new Waits(parts.started("r", on(Jobs.MACHINE, "q")));
        long id = retrying("q", Duration.ofSeconds(1));
        parts.clock.advance(Duration.ofSeconds(1));
        Instant again = parts.clock.now().plusSeconds(60);
        parts.spy.afterNext("due", () -> {
            parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.BACKOFF_OVER, Command.system().actor("elsewhere"));
            parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.START);
            Kernel.of(parts.engine).fire(Jobs.MACHINE, id, Jobs.Event.RETRYABLE, Command.system(), (cur, next) -> next.notBefore(again));
        });
        waits.fireDue(parts.clock.now());
        assertThat(parts.task(id).state()).isEqualTo("RETRYING");
        assertThat(parts.task(id).notBefore()).isEqualTo(again);
        assertThat(parts.events(id)).containsExactly("START", "RETRYABLE", "BACKOFF_OVER", "START", "RETRYABLE");
    }

    @Test
    void theNextDueTimeIsTheEarliestOfTheClaimableAndWaitingTasksOfEveryRegistration() {
        Machine<Jobs.State, Jobs.Event> other = Jobs.machine("other", false, false);
        Waits waits = new Waits(parts.started("r", on(Jobs.MACHINE, "q"), on(other, "b")));
        Instant t0 = parts.clock.now();
        assertThat(waits.nextDue(t0)).isNull();
        parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").notBefore(t0.plusSeconds(7)));
        retrying("q", Duration.ofSeconds(3));
        parts.engine.create(RuntimeParts.PLAIN, TaskSpec.defaults().queue("q").notBefore(t0.plusSeconds(1)));   // served by nobody here
        assertThat(waits.nextDue(t0)).isEqualTo(t0.plusSeconds(3));
        parts.engine.create(other, TaskSpec.defaults().queue("b").notBefore(t0.plusSeconds(2)));
        assertThat(waits.nextDue(t0)).isEqualTo(t0.plusSeconds(2));
        assertThat(waits.nextDue(t0.plusSeconds(3))).as("strictly after the time asked").isEqualTo(t0.plusSeconds(7));
        assertThat(waits.nextDue(t0.plusSeconds(7))).isNull();
        assertThat(parts.spy.calls("nextDue").get(0).args().get(1)).as("the states it asks about").isEqualTo(Set.of("QUEUED", "RETRYING"));
    }
}
