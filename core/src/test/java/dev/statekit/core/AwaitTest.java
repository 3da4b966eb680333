package dev.statekit.core;

import dev.statekit.core.internal.Kernel;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Waiting for a task to reach a state: woken by changes, by the periodic check, and ended by its timeout. */
class AwaitTest {
    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).awaitRecheck(Duration.ofSeconds(5)).build();
    final Machine<Jobs.State, Jobs.Event> m = Jobs.MACHINE;

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.get();
            throw new AssertionError("the future completed normally");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aTaskAlreadyInAStateCompletesTheWaitAtOnce() {
        long id = engine.create(m).task().id();
        CompletableFuture<Task<Jobs.State>> f = engine.await(m, id, Set.of(Jobs.State.QUEUED), Duration.ofMinutes(1));
        assertThat(f).isCompleted();
        assertThat(f.join().id()).isEqualTo(id);
    }

    @Test
    void aChangeThroughTheEngineCompletesTheWaitAsItIsWritten() {
        long id = engine.create(m).task().id();
        CompletableFuture<Task<Jobs.State>> f = engine.awaitTerminal(m, id, Duration.ofMinutes(1));
        engine.fire(m, id, Jobs.Event.BLOCK).orElseThrow();
        assertThat(f).as("not a terminal state yet").isNotDone();
        engine.fire(m, id, Jobs.Event.CANCEL, Command.user("ann")).orElseThrow();
        assertThat(f).isCompleted();
        assertThat(f.join().state()).isEqualTo(Jobs.State.CANCELED);
        assertThat(f.join().version()).isEqualTo(2);
    }

    @Test
    void aChangeTheEngineDoesNotSeeIsFoundByThePeriodicCheck() {
        long id = engine.create(m).task().id();
        CompletableFuture<Task<Jobs.State>> f = engine.await(m, id, Set.of(Jobs.State.BLOCKED), Duration.ofMinutes(1));
        TransitionEngine other = TransitionEngine.builder().store(store).clock(clock).build();     // another engine on the store
        other.fire(m, id, Jobs.Event.BLOCK).orElseThrow();
        assertThat(f).isNotDone();
        clock.advance(Duration.ofSeconds(4));
        assertThat(f).as("before the check").isNotDone();
        clock.advance(Duration.ofSeconds(1));
        assertThat(f).isCompleted();
        assertThat(f.join().state()).isEqualTo(Jobs.State.BLOCKED);
    }

    @Test
    void aWaitEndsWithATimeoutOnTheClock() {
        long id = engine.create(m).task().id();
        CompletableFuture<Task<Jobs.State>> f = engine.awaitTerminal(m, id, Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(29));
        assertThat(f).isNotDone();
        clock.advance(Duration.ofSeconds(1));
        assertThat(failure(f)).isInstanceOf(TimeoutException.class).hasMessageContaining("task " + id)
                .hasMessageContaining("PT30S");
        engine.fire(m, id, Jobs.Event.CANCEL, Command.user("ann")).orElseThrow();
        assertThat(failure(f)).as("a change after the timeout changes nothing").isInstanceOf(TimeoutException.class);
    }

    @Test
    void aWaitForAMissingTaskOrATaskOfAnotherMachineFails() {
        assertThat(failure(engine.awaitTerminal(m, 4242, Duration.ofMinutes(1)))).isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("task 4242");
        long id = engine.create(m).task().id();
        Machine<Jobs.State, Jobs.Event> other = Jobs.machine("other", false, false);
        assertThat(failure(engine.awaitTerminal(other, id, Duration.ofMinutes(1)))).isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("machine other");
    }

    @Test
    void waitsOnOneTaskCompleteEachByItsOwnStatesAndACancelledWaitEnds() {
        long id = engine.create(m).task().id();
        CompletableFuture<Task<Jobs.State>> blocked = engine.await(m, id, Set.of(Jobs.State.BLOCKED), Duration.ofMinutes(1));
        CompletableFuture<Task<Jobs.State>> done = engine.awaitTerminal(m, id, Duration.ofMinutes(1));
        CompletableFuture<Task<Jobs.State>> dropped = engine.awaitTerminal(m, id, Duration.ofMinutes(1));
        dropped.cancel(false);
        engine.fire(m, id, Jobs.Event.BLOCK).orElseThrow();
        assertThat(blocked).isCompleted();
        assertThat(done).isNotDone();
        engine.fire(m, id, Jobs.Event.CANCEL, Command.user("ann")).orElseThrow();
        assertThat(done).isCompleted();
        assertThat(dropped).isCancelled();
    }

    @Test
    void oneWatchServesWaitsOneAfterAnotherAndIsClosedOnceNoneIsPendingForARecheck() {
        long id = engine.create(m).task().id();
        dev.statekit.core.spi.TransitionListener none = (machine, task, entry) -> { };
        assertThat(Kernel.of(engine).hasListenersBesides(none)).isFalse();
        CompletableFuture<Task<Jobs.State>> f = engine.awaitTerminal(m, id, Duration.ofMinutes(1));
        assertThat(Kernel.of(engine).hasListenersBesides(none)).as("the wait listens").isTrue();
        assertThat(clock.pendingTimers()).as("its timeout and the check").hasSize(2);
        engine.fire(m, id, Jobs.Event.BLOCK).orElseThrow();
        CompletableFuture<Task<Jobs.State>> next = engine.awaitTerminal(m, id, Duration.ofMinutes(1));
        engine.fire(m, id, Jobs.Event.CANCEL, Command.user("ann")).orElseThrow();
        assertThat(f).isCompleted();
        assertThat(next).isCompleted();
        assertThat(clock.pendingTimers()).as("only the closing of the idle watch").hasSize(1);
        assertThat(Kernel.of(engine).hasListenersBesides(none)).as("still listening, for a while").isTrue();
        clock.advance(Duration.ofSeconds(5));
        assertThat(Kernel.of(engine).hasListenersBesides(none)).as("no wait pending for a recheck").isFalse();
        assertThat(clock.pendingTimers()).isEmpty();
    }
}
