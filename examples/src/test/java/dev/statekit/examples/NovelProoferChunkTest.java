package dev.statekit.examples;

import static dev.statekit.examples.NovelProoferChunk.LAST_ERROR_CODE;
import static dev.statekit.examples.NovelProoferChunk.LAST_ERROR_MESSAGE;
import static dev.statekit.examples.NovelProoferChunk.RETRIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.Transition;
import dev.statekit.examples.NovelProoferChunk.Event;
import dev.statekit.examples.NovelProoferChunk.State;
import dev.statekit.store.TriggerSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class NovelProoferChunkTest extends MachineContract<State, Event> {
    static final Command SYSTEM = Command.system();

    @Override
    List<String> expectedRows() {
        return List.of(
                "PENDING START PROCESSING S",
                "PROCESSING SUCCEED DONE S",
                "PROCESSING FAIL ERROR S",
                "PROCESSING RETRYABLE_ERROR RETRYING S",
                "RETRYING BACKOFF_DONE PROCESSING S",
                "RETRYING SUCCEED DONE S",
                "RETRYING FAIL ERROR S",
                "ERROR RETRY_FAILED PENDING U",
                "PROCESSING RELEASE PENDING S",
                "RETRYING RELEASE PENDING S");
    }

    @Override
    Machine<State, Event> machine() {
        return NovelProoferChunk.MACHINE;
    }

    /** The system command a worker fires for {@code event}: error reports carry their code and message. */
    static Command report(Event event) {
        return switch (event) {
            case RETRYABLE_ERROR -> SYSTEM.set("error_code", "LLM_429").set("error_message", "rate limited");
            case FAIL -> SYSTEM.set("error_code", "LLM_INVALID_OUTPUT").set("error_message", "output failed validation");
            default -> SYSTEM;
        };
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
        assertThat(retrying.attribute(RETRIES)).isEqualTo("1");
        assertThat(retrying.attribute(LAST_ERROR_CODE)).isEqualTo("LLM_429");
        assertThat(retrying.attribute(LAST_ERROR_MESSAGE)).isEqualTo("rate limited");
        // the report's own keys are not kept beside last_error_*
        assertThat(retrying.attributes().contains("error_code")).isFalse();
        assertThat(retrying.attributes().contains("error_message")).isFalse();

        apply(id, Event.BACKOFF_DONE, SYSTEM);
        var again = apply(id, Event.RETRYABLE_ERROR, SYSTEM.set("error_code", "LLM_504").set("error_message", "gateway timeout"));
        assertThat(again.attribute(RETRIES)).isEqualTo("2");
        assertThat(again.attribute(LAST_ERROR_CODE)).isEqualTo("LLM_504");
        assertThat(again.attribute(LAST_ERROR_MESSAGE)).isEqualTo("gateway timeout");
    }

    @Test
    void theLastErrorIsKeptAfterALaterSuccess() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        apply(id, Event.RETRYABLE_ERROR, report(Event.RETRYABLE_ERROR));
        var done = apply(id, Event.SUCCEED, SYSTEM);
        assertThat(done.state()).isEqualTo(State.DONE);
        assertThat(done.attribute(RETRIES)).isEqualTo("1");
        assertThat(done.attribute(LAST_ERROR_CODE)).isEqualTo("LLM_429");
        assertThat(done.attribute(LAST_ERROR_MESSAGE)).isEqualTo("rate limited");
    }

    @Test
    void anErrorReportWithoutACodeNeverKeepsAnOlderMessage() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        apply(id, Event.RETRYABLE_ERROR, report(Event.RETRYABLE_ERROR));
        apply(id, Event.BACKOFF_DONE, SYSTEM);
        var error = apply(id, Event.FAIL, SYSTEM);
        assertThat(error.attribute(LAST_ERROR_CODE)).isEqualTo(NovelProoferChunk.UNKNOWN_ERROR);
        assertThat(error.attributes().contains(LAST_ERROR_MESSAGE)).isFalse();
        assertThat(error.attribute(RETRIES)).isEqualTo("1");
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
        assertThat(pending.attribute(LAST_ERROR_CODE)).isEqualTo("LLM_INVALID_OUTPUT");
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
