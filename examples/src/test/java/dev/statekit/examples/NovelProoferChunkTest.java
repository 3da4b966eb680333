package dev.statekit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.NovelProoferChunk.Event;
import dev.statekit.examples.NovelProoferChunk.State;
import dev.statekit.store.TaskError;
import dev.statekit.store.TriggerSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class NovelProoferChunkTest extends MachineContract<State, Event> {
    static final Command SYSTEM = Command.system();

    @Override
    List<String> expectedRows() {
        return List.of(
                "PENDING START PROCESSING S",
                "PROCESSING SUCCEED DONE S",
                "PROCESSING FAIL ERROR S [error-reported]",
                "PROCESSING RETRYABLE_ERROR RETRYING S [error-reported]",
                "RETRYING BACKOFF_DONE PROCESSING S",
                "RETRYING SUCCEED DONE S",
                "RETRYING FAIL ERROR S [error-reported]",
                "ERROR RETRY_FAILED PENDING U",
                "PROCESSING RELEASE PENDING S",
                "RETRYING RELEASE PENDING S");
    }

    @Override
    Machine<State, Event> machine() {
        return NovelProoferChunk.MACHINE;
    }

    /** The system command a worker fires for {@code event}: error reports carry their error. */
    static Command report(Event event) {
        return switch (event) {
            case RETRYABLE_ERROR -> SYSTEM.error(new TaskError("LLM_429", "rate limited", true, null));
            case FAIL -> SYSTEM.error(new TaskError("LLM_INVALID_OUTPUT", "output failed validation", false, null));
            default -> SYSTEM;
        };
    }

    /**
     * Runs one chunk under a runtime whose worker returns {@code results} one per attempt (a
     * success once they run out), advancing the clock past each back-off; returns the chunk.
     */
    Task<State> runUnderRuntime(WorkResult... results) {
        Deque<WorkResult> script = new ArrayDeque<>(List.of(results));
        ManualExecutor executor = new ManualExecutor();
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("proofer").executor(executor).seed(1)
                .register(machine(), "chunks", ctx -> script.isEmpty() ? WorkResult.success() : script.poll(), QueueOptions.defaults())
                .build();
        long id = engine.create(machine(), TaskSpec.defaults().queue("chunks")).task().id();
        runtime.start();
        executor.runAll();
        while (task(id).state() == State.RETRYING) {
            clock.advanceTo(task(id).record().notBefore());
            executor.runAll();
        }
        runtime.halt();
        return task(id);
    }

    @Override
    Command command(Transition<State, Event> row, TriggerSource source, Task<State> task) {
        return source == TriggerSource.SYSTEM ? report(row.event()) : base(source);
    }

    @Test
    void aRetryableErrorCountsTheRetryAndRecordsTheLastError() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        var retrying = apply(id, Event.RETRYABLE_ERROR, report(Event.RETRYABLE_ERROR));
        assertThat(retrying.state()).isEqualTo(State.RETRYING);
        assertThat(retrying.record().lastError().code()).isEqualTo("LLM_429");
        assertThat(retrying.record().lastError().message()).isEqualTo("rate limited");
        // the error is the record's, not an attribute beside it
        assertThat(retrying.attributes().isEmpty()).isTrue();

        apply(id, Event.BACKOFF_DONE, SYSTEM);
        var again = apply(id, Event.RETRYABLE_ERROR, SYSTEM.error(new TaskError("LLM_504", "gateway timeout", true, null)));
        assertThat(again.record().lastError().code()).isEqualTo("LLM_504");
        assertThat(again.record().lastError().message()).isEqualTo("gateway timeout");

        // the runtime counts the retries on the record
        Task<State> retried = runUnderRuntime(WorkResult.retryable("LLM_429", "rate limited"),
                WorkResult.retryable("LLM_504", "gateway timeout"));
        assertThat(retried.state()).isEqualTo(State.DONE);
        assertThat(retried.record().retries()).isEqualTo(2);
        assertThat(retried.record().lastError().code()).isEqualTo("LLM_504");
    }

    @Test
    void theLastErrorIsKeptAfterALaterSuccess() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        apply(id, Event.RETRYABLE_ERROR, report(Event.RETRYABLE_ERROR));
        var done = apply(id, Event.SUCCEED, SYSTEM);
        assertThat(done.state()).isEqualTo(State.DONE);
        assertThat(done.record().lastError().code()).isEqualTo("LLM_429");
        assertThat(done.record().lastError().message()).isEqualTo("rate limited");

        Task<State> run = runUnderRuntime(WorkResult.retryable("LLM_429", "rate limited"));
        assertThat(run.state()).isEqualTo(State.DONE);
        assertThat(run.record().retries()).isEqualTo(1);
        assertThat(run.record().lastError().code()).isEqualTo("LLM_429");
    }

    @Test
    void anErrorReportWithoutACodeNeverKeepsAnOlderMessage() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        apply(id, Event.RETRYABLE_ERROR, report(Event.RETRYABLE_ERROR));
        apply(id, Event.BACKOFF_DONE, SYSTEM);
        // a report without its error is refused: the older error stays whole
        refuse(id, Event.FAIL, SYSTEM, RefusalCode.GUARD_REFUSED, NovelProoferChunk.ERROR_MISSING);
        assertThat(task(id).record().lastError()).isEqualTo(new TaskError("LLM_429", "rate limited", true, null));
        // a new error replaces code and message together
        var error = apply(id, Event.FAIL, report(Event.FAIL));
        assertThat(error.record().lastError()).isEqualTo(new TaskError("LLM_INVALID_OUTPUT", "output failed validation", false, null));
    }

    @Test
    void retryingIsABackoffInsideOneProcessingNotARetryQueue() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        apply(id, Event.FAIL, report(Event.FAIL));
        // a failed chunk is not picked up again by a worker: only the user's retry-failed brings it back
        refuse(id, Event.START, SYSTEM, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        refuse(id, Event.BACKOFF_DONE, SYSTEM, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        refuse(id, Event.RETRY_FAILED, SYSTEM, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        var pending = apply(id, Event.RETRY_FAILED, Command.user("alice").set(NovelProoferChunk.LLM_MODEL, "model-b"));
        assertThat(pending.state()).isEqualTo(State.PENDING);
        assertThat(pending.attribute(NovelProoferChunk.LLM_MODEL)).isEqualTo("model-b");
        assertThat(pending.record().lastError().code()).isEqualTo("LLM_INVALID_OUTPUT");
        assertThat(apply(id, Event.START, SYSTEM).state()).isEqualTo(State.PROCESSING);
    }

    @Test
    void restartHealReturnsInFlightChunksToPending() {
        long processing = create();
        apply(processing, Event.START, SYSTEM);
        long retrying = create();
        apply(retrying, Event.START, SYSTEM);
        apply(retrying, Event.RETRYABLE_ERROR, report(Event.RETRYABLE_ERROR));

        assertThat(apply(processing, Event.RELEASE, SYSTEM.reason("restart heal")).state()).isEqualTo(State.PENDING);
        assertThat(apply(retrying, Event.RELEASE, SYSTEM.reason("restart heal")).state()).isEqualTo(State.PENDING);
        assertThat(machine().allowedEvents(State.PENDING)).containsExactly(Event.START);
    }

    @Test
    void doneIsTheOnlyTerminalState() {
        assertThat(machine().terminals()).containsExactly(State.DONE);
        assertThat(machine().allowedEvents(State.ERROR)).containsExactly(Event.RETRY_FAILED);
    }
}
