package dev.statekit.core.runtime;

import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * What bounds what: the retry policy bounds the retries of one processing; a pause, a stopping
 * runtime or a restart ends the processing, and the next one starts with a fresh retry budget; the
 * run policy's most attempts bound every processing of a stage together, so that a worker that
 * crashes its process every time cannot loop for ever.
 */
class AttemptBoundsTest {
    enum State { PENDING, PROCESSING, RETRYING, DONE, ERROR }

    enum Event { START, SUCCEED, FAIL, RETRYABLE_ERROR, BACKOFF_DONE, RELEASE, RETRY_FAILED }

    /** The novel-proofer chunk's shape: retrying is the wait inside one processing; release (also the cancel event) goes back to pending. */
    static Machine<State, Event> chunk(int maxRetries, int maxAttempts) {
        return Machine.builder("chunk", State.class, Event.class)
                .initial(State.PENDING)
                .terminal(State.DONE)
                .transition(State.PENDING, Event.START, State.PROCESSING, SYSTEM)
                .transition(State.PROCESSING, Event.SUCCEED, State.DONE, SYSTEM)
                .transition(State.PROCESSING, Event.FAIL, State.ERROR, SYSTEM)
                .transition(State.PROCESSING, Event.RETRYABLE_ERROR, State.RETRYING, SYSTEM)
                .transition(State.RETRYING, Event.BACKOFF_DONE, State.PROCESSING, SYSTEM)
                .transition(State.PROCESSING, Event.RELEASE, State.PENDING, SYSTEM, USER)
                .transition(State.RETRYING, Event.RELEASE, State.PENDING, SYSTEM, USER)
                .transition(State.ERROR, Event.RETRY_FAILED, State.PENDING, USER)
                .run(r -> r.claim(State.PENDING, Event.START).claim(State.RETRYING, Event.BACKOFF_DONE)
                        .success(Event.SUCCEED).retryable(Event.RETRYABLE_ERROR).fatal(Event.FAIL)
                        .release(Event.RELEASE).cancel(Event.RELEASE).maxAttempts(maxAttempts)
                        .retry(RetryPolicy.exponential(maxRetries, Duration.ofSeconds(1), Duration.ofSeconds(1))))
                .build();
    }

    /** What the worker of one attempt does. */
    enum Step {
        SUCCEED, FAIL, RETRYABLE, SNOOZE,
        /** The user pauses the chunk while it runs (its cancel event puts it back to pending). */
        PAUSE,
        /** The runtime stops gracefully while the chunk runs; a new runtime takes over. */
        STOP,
        /** The process dies while the chunk runs; it restarts under the same owner. */
        CRASH
    }

    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final ManualExecutor executor = new ManualExecutor();

    /** Runs one chunk through {@code script}, one step per attempt, and returns the record after each attempt settled. */
    final class Harness {
        final Machine<State, Event> machine;
        final Deque<Step> script;
        final List<TaskRecord> settled = new ArrayList<>();
        final long id;
        TaskRuntime runtime;
        boolean replace;

        Harness(Machine<State, Event> machine, List<Step> steps) {
            this.machine = machine;
            this.script = new ArrayDeque<>(steps);
            this.id = engine.create(machine).task().id();
            this.runtime = start();
        }

        TaskRuntime start() {
            TaskRuntime rt = TaskRuntime.builder(engine).owner("node").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofSeconds(5)).cancelGrace(Duration.ofSeconds(10)).register(machine, ctx -> {
                        Step step = script.isEmpty() ? Step.SUCCEED : script.poll();
                        switch (step) {
                            case SUCCEED: return WorkResult.success();
                            case FAIL: return WorkResult.fatal("BAD_INPUT", "no");
                            case RETRYABLE: return WorkResult.retryable("HTTP_429", "slow down");
                            case SNOOZE: return WorkResult.snooze(Duration.ofSeconds(2));
                            case PAUSE:
                                current().cancel(machine, id, Command.user("reader").reason("paused"));
                                return WorkResult.success();       // the cancellation wins
                            case STOP:
                                current().stop(Duration.ofSeconds(1));
                                clock.advance(Duration.ofSeconds(1));     // the grace runs out while the worker still works
                                replace = true;
                                return WorkResult.success();       // too late: released at the end of the grace
                            case CRASH:
                            default:
                                current().halt();
                                replace = true;
                                return WorkResult.success();       // never written
                        }
                    }).build();
            rt.start();
            return rt;
        }

        TaskRuntime current() {
            return runtime;
        }

        /** Runs until the chunk has ended or its script is used up. */
        void run() {
            for (int round = 0; round < 500 && !ended(); round++) {
                int before = store.history(id).size();
                executor.runAll();
                if (replace) {
                    replace = false;
                    runtime.halt();
                    runtime = start();          // a restart under the same owner heals what it held
                    executor.runAll();
                }
                if (store.history(id).size() != before && store.find(id).orElseThrow().lease() == null) {
                    settled.add(store.find(id).orElseThrow());
                }
                clock.advance(Duration.ofSeconds(5));
            }
            runtime.halt();
        }

        boolean ended() {
            String s = store.find(id).orElseThrow().state();
            return s.equals("DONE") || s.equals("ERROR");
        }
    }

    // --- the rule over sequences -------------------------------------------------------------------

    @Provide
    Arbitrary<List<Step>> scripts() {
        return Arbitraries.of(Step.class).list().ofMinSize(1).ofMaxSize(30);
    }

    @Property(tries = 150)
    void attemptsAndRetriesFollowTheModelWhateverEachAttemptDoes(@ForAll("scripts") List<Step> steps,
                                                                 @ForAll @IntRange(min = 0, max = 3) int maxRetries,
                                                                 @ForAll @IntRange(min = 1, max = 5) int maxAttempts) {
        Harness h = new Harness(chunk(maxRetries, maxAttempts), steps);
        h.run();
        // The model: attempts and retries after each step, and the end.
        int attempts = 0;
        int retries = 0;
        String state = "PENDING";
        String code = null;
        for (Step step : steps) {
            if (state.equals("DONE") || state.equals("ERROR")) break;
            attempts++;
            switch (step) {
                case SUCCEED: state = "DONE"; break;
                case FAIL: state = "ERROR"; code = "BAD_INPUT"; break;
                case RETRYABLE:
                    code = "HTTP_429";
                    if (retries < maxRetries && attempts < maxAttempts) {
                        retries++;
                        state = "RETRYING";
                    } else {
                        state = "ERROR";
                    }
                    break;
                case SNOOZE: attempts--; state = "PENDING"; break;
                case PAUSE:
                case STOP: attempts--; retries = 0; state = "PENDING"; break;
                case CRASH:
                default:
                    if (attempts >= maxAttempts) {
                        state = "ERROR";
                        code = Settlement.ATTEMPTS_EXHAUSTED;
                    } else {
                        retries = 0;
                        state = "PENDING";
                    }
            }
            assertThat(attempts).isBetween(0, maxAttempts);
            assertThat(retries).isBetween(0, maxRetries);
        }
        if (!state.equals("DONE") && !state.equals("ERROR")) {
            attempts++;              // the script ran out: the next attempt succeeds
            state = "DONE";
        }
        TaskRecord end = store.find(h.id).orElseThrow();
        assertThat(end.state()).isEqualTo(state);
        assertThat(end.attempts()).as("attempts").isEqualTo(attempts);
        assertThat(end.retries()).as("retries").isEqualTo(retries);
        if (code != null) assertThat(end.lastError()).isNotNull().extracting(e -> e.code()).isEqualTo(code);
        for (TaskRecord t : h.settled) {
            assertThat(t.attempts()).as("attempts after every step").isBetween(0, maxAttempts);
            assertThat(t.retries()).as("retries after every step").isBetween(0, maxRetries);
        }
        long claims = store.history(h.id).stream().filter(e -> e.event().equals("START") || e.event().equals("BACKOFF_DONE")).count();
        long givenBack = steps.stream().limit(claims).filter(s -> s == Step.SNOOZE || s == Step.PAUSE || s == Step.STOP).count();
        assertThat(claims - givenBack).as("attempts used up in the stage, in total").isLessThanOrEqualTo(maxAttempts);
    }

    // --- examples --------------------------------------------------------------------------------

    @Test
    void aWorkerThatCrashesItsProcessEveryTimeFailsAfterTheLastAttempt() {
        Harness h = new Harness(chunk(3, 4), List.of(Step.CRASH, Step.CRASH, Step.CRASH, Step.CRASH, Step.CRASH, Step.CRASH));
        h.run();
        TaskRecord t = store.find(h.id).orElseThrow();
        assertThat(t.state()).isEqualTo("ERROR");
        assertThat(t.attempts()).isEqualTo(4);
        assertThat(t.lastError().code()).isEqualTo("ATTEMPTS_EXHAUSTED");
        assertThat(t.lastError().message()).contains("attempt 4 of 4");
        assertThat(h.script).as("the fifth crash never ran").hasSize(2);
    }

    @Test
    void aPausedChunkStartsItsNextProcessingWithAFreshRetryBudgetAndItsAttemptBack() {
        Harness h = new Harness(chunk(2, 25), List.of(Step.RETRYABLE, Step.RETRYABLE, Step.PAUSE, Step.RETRYABLE, Step.RETRYABLE,
                Step.RETRYABLE));
        h.run();
        List<String> events = store.history(h.id).stream().map(HistoryEntry::event).toList();
        assertThat(events).containsExactly("START", "RETRYABLE_ERROR", "BACKOFF_DONE", "RETRYABLE_ERROR", "BACKOFF_DONE", "RELEASE",
                "START", "RETRYABLE_ERROR", "BACKOFF_DONE", "RETRYABLE_ERROR", "BACKOFF_DONE", "FAIL");
        TaskRecord t = store.find(h.id).orElseThrow();
        assertThat(t.retries()).as("two retries in the second processing too").isEqualTo(2);
        assertThat(t.attempts()).as("the paused attempt was given back").isEqualTo(5);
        assertThat(t.lastError().message()).isEqualTo("slow down");
    }

    @Test
    void aChunkReleasedByAStoppingRuntimeOrARestartStartsAgainWithAFreshRetryBudget() {
        Harness h = new Harness(chunk(1, 25), List.of(Step.RETRYABLE, Step.STOP, Step.RETRYABLE, Step.CRASH, Step.RETRYABLE,
                Step.SUCCEED));
        h.run();
        List<String> events = store.history(h.id).stream().map(HistoryEntry::event).toList();
        assertThat(events).containsExactly("START", "RETRYABLE_ERROR", "BACKOFF_DONE", "RELEASE", "START", "RETRYABLE_ERROR",
                "BACKOFF_DONE", "RELEASE", "START", "RETRYABLE_ERROR", "BACKOFF_DONE", "SUCCEED");
        TaskRecord t = store.find(h.id).orElseThrow();
        assertThat(t.attempts()).as("the stop gave its attempt back, the crash did not").isEqualTo(5);
        assertThat(t.retries()).isEqualTo(1);
    }

    @Test
    void retryableFailuresStopAtTheMostAttemptsEvenWithRetriesLeft() {
        Harness h = new Harness(chunk(5, 2), List.of(Step.RETRYABLE, Step.RETRYABLE, Step.RETRYABLE));
        h.run();
        TaskRecord t = store.find(h.id).orElseThrow();
        assertThat(t.state()).isEqualTo("ERROR");
        assertThat(t.attempts()).isEqualTo(2);
        assertThat(t.retries()).isEqualTo(1);
        assertThat(store.history(h.id).get(store.history(h.id).size() - 1).reason()).isEqualTo("HTTP_429 on attempt 2 of 2: slow down");
    }

    @Test
    void aManualRetryStartsTheAttemptsAndRetriesAgain() {
        Harness h = new Harness(chunk(1, 2), List.of(Step.RETRYABLE, Step.RETRYABLE));
        h.run();
        assertThat(store.find(h.id).orElseThrow().attempts()).isEqualTo(2);
        TaskRuntime rt = h.start();
        assertThat(TaskOperations.of(engine).retry(h.machine, h.id, Event.RETRY_FAILED, false, Command.user("operator")).isApplied()).isTrue();
        TaskRecord t = store.find(h.id).orElseThrow();
        assertThat(t.state()).isEqualTo("PENDING");
        assertThat(t.attempts()).isZero();
        assertThat(t.retries()).isZero();
        rt.halt();
    }

    @Test
    void theDefaultMostAttemptsAndItsBoundsAreChecked() {
        Machine<State, Event> m = chunk(3, 25);
        assertThat(m.runPolicy().maxAttempts()).isEqualTo(RunPolicy.DEFAULT_MAX_ATTEMPTS).isEqualTo(25);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> chunk(3, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts must be >= 1");
    }
}
