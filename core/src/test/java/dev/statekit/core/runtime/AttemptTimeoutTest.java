package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run policy's timeout: the worker is asked to stop, then interrupted, and the attempt ends as a retryable TIMEOUT. */
class AttemptTimeoutTest {
    enum State { QUEUED, RUNNING, RETRYING, DONE, FAILED }

    enum Event { START, COMPLETE, RETRYABLE, FAIL, BACKOFF_OVER }

    static final Machine<State, Event> TIMED = Machine.builder("timed", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.FAILED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.RETRYABLE, State.RETRYING, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RETRYING, Event.BACKOFF_OVER, State.QUEUED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).retryable(Event.RETRYABLE).fatal(Event.FAIL)
                    .afterWait(State.RETRYING, Event.BACKOFF_OVER).timeout(Duration.ofMinutes(1))
                    .retry(RetryPolicy.exponential(2, Duration.ofSeconds(5), Duration.ofSeconds(5))))
            .build();

    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final ManualExecutor executor = new ManualExecutor();

    TaskRuntime runtime(dev.statekit.core.spi.Worker<State> worker) {
        return TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .cancelGrace(Duration.ofSeconds(20)).register(TIMED, worker).build();
    }

    @Test
    void anAttemptPastItsTimeoutIsAskedToStopThenInterruptedAndEndsAsARetryableTimeout() {
        long id = engine.create(TIMED).task().id();
        List<String> seen = new ArrayList<>();
        Instant t0 = clock.now();
        TaskRuntime rt = runtime(ctx -> {
            for (int s = 0; s < 18; s++) {                      // up to three minutes of work, ten seconds at a time
                clock.advance(Duration.ofSeconds(10));
                Duration ran = Duration.between(t0, clock.now());
                if (ctx.cancelled() && seen.isEmpty()) seen.add("asked to stop after " + ran + ": " + ctx.cancelReason());
                if (Thread.currentThread().isInterrupted()) {   // this worker heeds only an interrupt
                    seen.add("interrupted after " + ran);
                    break;
                }
            }
            return WorkResult.success();                        // too late: the attempt timed out
        });
        rt.start();
        executor.runAll();
        assertThat(seen).containsExactly("asked to stop after PT1M: TIMEOUT", "interrupted after PT1M20S");
        TaskRecord t = store.find(id).orElseThrow();
        assertThat(t.state()).isEqualTo("RETRYING");
        assertThat(t.lastError().code()).isEqualTo("TIMEOUT");
        assertThat(t.lastError().retryable()).isTrue();
        assertThat(t.retries()).isEqualTo(1);
        assertThat(Thread.currentThread().isInterrupted()).as("the slot's thread goes on without the interrupt").isFalse();
        rt.halt();
    }

    @Test
    void aWorkerThatHeedsNothingLosesItsLeaseAndTheTaskIsTakenOver() {
        long id = engine.create(TIMED).task().id();
        List<String> seen = new ArrayList<>();
        int[] attempts = {0};
        TaskRuntime rt = runtime(ctx -> {
            if (++attempts[0] > 1) return WorkResult.success();
            for (int s = 0; s < 18; s++) clock.advance(Duration.ofSeconds(10));     // three minutes, heeding nothing
            Thread.interrupted();
            TaskRecord now = store.find(ctx.task().id()).orElseThrow();
            seen.add(now.lease() != null && now.lease().expiresAt().isBefore(clock.now()) ? "lease run out" : "lease renewed");
            return WorkResult.success();
        });
        rt.start();
        executor.runAll();
        assertThat(seen).as("no renewal past the timeout and the grace").containsExactly("lease run out");
        assertThat(store.history(id)).extracting(dev.statekit.store.HistoryEntry::event)
                .containsExactly("START", "RELEASE", "START", "COMPLETE");
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
        rt.halt();
    }

    @Test
    void anAttemptWithinItsTimeoutEndsAsItsWorkerSays() {
        long id = engine.create(TIMED).task().id();
        TaskRuntime rt = runtime(ctx -> {
            clock.advance(Duration.ofSeconds(50));
            return ctx.cancelled() ? WorkResult.fatal("SIGNALLED", "asked to stop") : WorkResult.success();
        });
        rt.start();
        executor.runAll();
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
        clock.advance(Duration.ofMinutes(5));      // the deadline's timers were called off: nothing fires on the done task
        executor.runAll();
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
        rt.halt();
    }
}
