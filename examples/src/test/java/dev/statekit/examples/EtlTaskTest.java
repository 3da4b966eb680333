package dev.statekit.examples;

import static dev.statekit.examples.EtlTask.ATTEMPT_OCR;
import static dev.statekit.examples.EtlTask.ATTEMPT_POSTPROCESS;
import static dev.statekit.examples.EtlTask.FROM_STAGE;
import static dev.statekit.examples.EtlTask.MARKDOWN_KEY;
import static dev.statekit.examples.EtlTask.PHASE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.examples.EtlTask.Event;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.store.TaskError;
import dev.statekit.store.TriggerSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EtlTaskTest extends MachineContract<State, Event> {
    static final Command ALICE = Command.user("alice");
    static final Command SYSTEM = Command.system();
    static final String MARKDOWN = "etl/tasks/42/mineru.md";

    @Override
    List<String> expectedRows() {
        return List.of(
                "PENDING START_OCR MINERU_PARSING S",
                "MINERU_PARSING OCR_DONE POSTPROCESS_QUEUED S [markdown-pointer]",
                "POSTPROCESS_QUEUED START_POSTPROCESS LLM_PROCESSING S",
                "LLM_PROCESSING POSTPROCESS_RELEASE POSTPROCESS_QUEUED S",
                "MINERU_PARSING OCR_FAILED FAILED S [error-reported]",
                "LLM_PROCESSING POSTPROCESS_DONE COMPLETED S",
                "LLM_PROCESSING POSTPROCESS_FAILED FAILED S [error-reported]",
                "PENDING CANCEL CANCELLED U",
                "FAILED RETRY POSTPROCESS_QUEUED U [from-stage-postprocess]",
                "FAILED RETRY PENDING U [from-stage-mineru]");
    }

    @Override
    Machine<State, Event> machine() {
        return EtlTask.MACHINE;
    }

    @Override
    TaskSpec spec() {
        return EtlTask.spec(null, "direct-json");
    }

    @Override
    Map<String, String> namedRefusals() {
        return Map.of("MINERU_PARSING/CANCEL", EtlTask.TASK_ALREADY_STARTED,
                "POSTPROCESS_QUEUED/CANCEL", EtlTask.TASK_ALREADY_STARTED,
                "LLM_PROCESSING/CANCEL", EtlTask.TASK_ALREADY_STARTED);
    }

    @Override
    Command command(Transition<State, Event> row, TriggerSource source, Task<State> task) {
        Command c = base(source);
        return switch (row.event()) {
            case OCR_DONE -> c.set(MARKDOWN_KEY, MARKDOWN);
            case OCR_FAILED, POSTPROCESS_FAILED -> c.error(error("STAGE_FAILED", "stage failed"));
            case RETRY -> c.set(FROM_STAGE, row.to() == State.POSTPROCESS_QUEUED ? "postprocess" : "mineru");
            default -> c;
        };
    }

    static TaskError error(String code, String message) {
        return new TaskError(code, message, false, null);
    }

    long parsing() {
        long id = create();
        apply(id, Event.START_OCR, SYSTEM);
        return id;
    }

    long postprocessFailed() {
        long id = parsing();
        apply(id, Event.OCR_DONE, SYSTEM.set(MARKDOWN_KEY, MARKDOWN));
        apply(id, Event.START_POSTPROCESS, SYSTEM);
        apply(id, Event.POSTPROCESS_FAILED, SYSTEM.error(error("LLM_TIMEOUT", "timed out")));
        return id;
    }

    @Test
    void theChainedStagesSetThePhaseAndCountAttempts() {
        long id = parsing();
        assertThat(task(id).attribute(PHASE)).isEqualTo("ocr");
        assertThat(task(id).attribute(ATTEMPT_OCR)).isEqualTo("1");
        var queued = apply(id, Event.OCR_DONE, SYSTEM.set(MARKDOWN_KEY, MARKDOWN));
        assertThat(queued.state()).isEqualTo(State.POSTPROCESS_QUEUED);
        assertThat(EtlHost.fields(queued)).containsEntry("status", "llm_processing");     // the seed's status values are kept
        var llm = apply(id, Event.START_POSTPROCESS, SYSTEM);
        assertThat(llm.state()).isEqualTo(State.LLM_PROCESSING);
        assertThat(llm.attribute(PHASE)).isEqualTo("postprocess");
        assertThat(llm.attribute(ATTEMPT_POSTPROCESS)).isEqualTo("1");
        assertThat(llm.attribute(MARKDOWN_KEY)).isEqualTo(MARKDOWN);
        var done = apply(id, Event.POSTPROCESS_DONE, SYSTEM);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(done.attribute(PHASE)).isEqualTo("finalize");
        assertThat(machine().allowedEvents(State.COMPLETED)).isEmpty();
    }

    @Test
    void theDefaultRuleSkipsTheLlmAsDataNotAsAState() {
        var skip = engine.create(machine(), EtlTask.spec(null, "direct-json")).task();
        assertThat(skip.attribute(EtlTask.POSTPROCESS_MODE)).isEqualTo("skip");
        assertThat(skip.attribute(EtlTask.RULE_ID)).isEqualTo(EtlTask.DEFAULT_RULE);
        var custom = engine.create(machine(), EtlTask.spec("rule-7", "chunked-extract")).task();
        assertThat(custom.attribute(EtlTask.POSTPROCESS_MODE)).isEqualTo("chunked-extract");
        // both modes take the same path through the machine
        for (long id : new long[] {skip.id(), custom.id()}) {
            apply(id, Event.START_OCR, SYSTEM);
            apply(id, Event.OCR_DONE, SYSTEM.set(MARKDOWN_KEY, MARKDOWN));
            apply(id, Event.START_POSTPROCESS, SYSTEM);
            assertThat(apply(id, Event.POSTPROCESS_DONE, SYSTEM).state()).isEqualTo(State.COMPLETED);
        }
    }

    @Test
    void cancelOnlyWhileThePendingTaskIsStillQueued() {
        long pending = create();
        assertThat(apply(pending, Event.CANCEL, ALICE).state()).isEqualTo(State.CANCELLED);

        long parsing = parsing();
        var r = refuse(parsing, Event.CANCEL, ALICE, RefusalCode.ILLEGAL_TRANSITION, EtlTask.TASK_ALREADY_STARTED);
        assertThat(r.code().httpStatus()).isEqualTo(409);
        apply(parsing, Event.OCR_DONE, SYSTEM.set(MARKDOWN_KEY, MARKDOWN));
        refuse(parsing, Event.CANCEL, ALICE, RefusalCode.ILLEGAL_TRANSITION, EtlTask.TASK_ALREADY_STARTED);
        // the system does not cancel either
        refuse(create(), Event.CANCEL, SYSTEM, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
    }

    @Test
    void aFinishedOcrStageMustReportTheMarkdownPointer() {
        long id = parsing();
        refuse(id, Event.OCR_DONE, SYSTEM, RefusalCode.GUARD_REFUSED, EtlTask.MARKDOWN_POINTER_MISSING);
        assertThat(apply(id, Event.OCR_DONE, SYSTEM.set(MARKDOWN_KEY, MARKDOWN)).state()).isEqualTo(State.POSTPROCESS_QUEUED);
    }

    @Test
    void retryFromPostprocessReusesTheOcrMarkdown() {
        long id = postprocessFailed();
        assertThat(EtlHost.fields(task(id))).containsEntry("error_code", "LLM_TIMEOUT").containsEntry("error_message", "timed out");
        assertThat(apply(id, Event.RETRY, ALICE.set(FROM_STAGE, "postprocess")).state()).isEqualTo(State.POSTPROCESS_QUEUED);
        var llm = apply(id, Event.START_POSTPROCESS, SYSTEM);
        assertThat(llm.state()).isEqualTo(State.LLM_PROCESSING);
        assertThat(llm.attribute(ATTEMPT_POSTPROCESS)).isEqualTo("2");
        assertThat(llm.attribute(ATTEMPT_OCR)).isEqualTo("1");
        assertThat(llm.attribute(MARKDOWN_KEY)).isEqualTo(MARKDOWN);
        assertThat(EtlHost.fields(llm)).doesNotContainKeys("error_code", "error_message");
    }

    @Test
    void retryFromPostprocessIsRefusedWithoutTheMarkdownPointer() {
        long id = parsing();
        apply(id, Event.OCR_FAILED, SYSTEM.error(error("MINERU_ERROR", "MineRU failed")));
        var r = refuse(id, Event.RETRY, ALICE.set(FROM_STAGE, "postprocess"), RefusalCode.GUARD_REFUSED,
                EtlTask.MARKDOWN_POINTER_MISSING);
        assertThat(r.message()).contains("from-stage-postprocess");
        // a refused postprocess retry never falls back to a full retry
        assertThat(task(id).state()).isEqualTo(State.FAILED);
    }

    @Test
    void retryFromMineruStartsOverAndDropsTheOldMarkdown() {
        long id = postprocessFailed();
        var pending = apply(id, Event.RETRY, ALICE);
        assertThat(pending.state()).isEqualTo(State.PENDING);
        assertThat(pending.attribute(PHASE)).isEqualTo("ocr");
        var parsing = apply(id, Event.START_OCR, SYSTEM);
        assertThat(parsing.attribute(ATTEMPT_OCR)).isEqualTo("2");
        assertThat(parsing.attributes().contains(MARKDOWN_KEY)).isFalse();
        refuse(id, Event.OCR_FAILED, SYSTEM, RefusalCode.GUARD_REFUSED, EtlTask.ERROR_MISSING);
        apply(id, Event.OCR_FAILED, SYSTEM.error(error("MINERU_ERROR", "MineRU failed")));
        assertThat(EtlHost.fields(task(id))).containsEntry("error_code", "MINERU_ERROR");
        refuse(id, Event.RETRY, ALICE.set(FROM_STAGE, "postprocess"), RefusalCode.GUARD_REFUSED, EtlTask.MARKDOWN_POINTER_MISSING);
        assertThat(apply(id, Event.RETRY, ALICE.set(FROM_STAGE, "mineru")).state()).isEqualTo(State.PENDING);
    }

    @Test
    void aRetryFromAnUnknownStageIsRefused() {
        long id = postprocessFailed();
        refuse(id, Event.RETRY, ALICE.set(FROM_STAGE, "embedding"), RefusalCode.GUARD_REFUSED, EtlTask.INVALID_FROM_STAGE);
        refuse(id, Event.RETRY, SYSTEM.set(FROM_STAGE, "mineru"), RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
    }

    @Test
    void completedAndCancelledAreTerminal() {
        assertThat(machine().terminals()).containsExactlyInAnyOrder(State.COMPLETED, State.CANCELLED);
    }
}
