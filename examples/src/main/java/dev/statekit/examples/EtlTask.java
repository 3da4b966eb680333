package dev.statekit.examples;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Effect;
import dev.statekit.core.Guard;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * The ETL task: a document parsed by MineRU (OCR) and then post-processed by rules or an LLM, as
 * two chained jobs whose status is {@code pending|mineru_parsing|llm_processing|completed|failed|
 * cancelled}.
 *
 * <p>Attributes: {@value #PHASE} ({@code ocr|postprocess|finalize}); the per-stage attempt
 * counters {@value #ATTEMPT_OCR} and {@value #ATTEMPT_POSTPROCESS}, counted when a stage starts
 * (the seed counts attempts per stage, while the record's {@code attempts()} counts the claims of
 * the OCR stage only); {@value #MARKDOWN_KEY}, the storage key of the OCR markdown, which a
 * finished OCR stage must report and which lets a failed task retry only its post-processing. The
 * seed's {@code error_code} and {@code error_message} are the record's {@code lastError()}: a
 * failure event carries its error as {@link dev.statekit.core.Command#error()} (the guard
 * {@value #ERROR_REPORTED} refuses one without, with {@value #ERROR_MISSING}), and the host shows
 * it while the task is {@code FAILED}. {@value #POSTPROCESS_MODE} is data the post-processing
 * worker reads ({@code skip} under the global default rule: wrap the markdown pointer in a stable
 * JSON without calling an LLM); it is not a state, and the task passes {@code LLM_PROCESSING} in
 * either mode.
 *
 * <p>Cancel is allowed only while the task is still pending in the queue; a task whose processing
 * started is not cancelled ({@value #TASK_ALREADY_STARTED}, 409).
 *
 * <p>Run policy: a runtime runs the OCR job. It claims pending tasks with {@link Event#START_OCR}
 * into {@code MINERU_PARSING}; the worker's success is {@link Event#OCR_DONE} (its attributes carry
 * {@value #MARKDOWN_KEY}), which chains the post-processing job by entering
 * {@code LLM_PROCESSING}; its failure is {@link Event#OCR_FAILED}. The table has no row from
 * {@code MINERU_PARSING} back to {@code PENDING}, so there is no release: an OCR job whose lease
 * expired fails the task ({@code LEASE_EXPIRED}), which the user may retry. The post-processing
 * job has no queued state in the table for a runtime to claim it from: the host runs it when a
 * task enters {@code LLM_PROCESSING} and reports {@link Event#POSTPROCESS_DONE} or
 * {@link Event#POSTPROCESS_FAILED}. {@link Event#CANCEL} is the cancel event: a runtime's cancel of
 * a started task is refused with {@value #TASK_ALREADY_STARTED}. A claim applies
 * {@code PENDING → MINERU_PARSING} with its effect, which sets {@value #PHASE} and counts
 * {@value #ATTEMPT_OCR}.
 */
public final class EtlTask {
    /** The attribute holding the stage: ocr, postprocess or finalize. */
    public static final String PHASE = "phase";
    /** The attribute counting OCR attempts. */
    public static final String ATTEMPT_OCR = "attempt_ocr";
    /** The attribute counting post-processing attempts. */
    public static final String ATTEMPT_POSTPROCESS = "attempt_postprocess";
    /** The attribute holding the storage key of the MineRU markdown. */
    public static final String MARKDOWN_KEY = "artifact_mineru_markdown_key";
    /** The attribute holding the post-processing mode the worker follows, for example {@code skip}. */
    public static final String POSTPROCESS_MODE = "postprocess_mode";
    /** The attribute naming the rule the task runs under. */
    public static final String RULE_ID = "rule_id";
    /** The command attribute of {@link Event#RETRY} naming the stage to retry from: mineru or postprocess. */
    public static final String FROM_STAGE = "from_stage";
    /** The rule used when the user names none. */
    public static final String DEFAULT_RULE = "default";

    /** The named refusal of cancelling a task whose processing started. */
    public static final String TASK_ALREADY_STARTED = "TASK_ALREADY_STARTED";
    /** The refusal code of a finished OCR report, or a post-processing retry, without the markdown key. */
    public static final String MARKDOWN_POINTER_MISSING = "MARKDOWN_POINTER_MISSING";
    /** The name of the guard that makes a failure carry its error. */
    public static final String ERROR_REPORTED = "error-reported";
    /** The refusal code of a failure without an error. */
    public static final String ERROR_MISSING = "ERROR_MISSING";
    /** The refusal code of a retry from a stage other than mineru or postprocess. */
    public static final String INVALID_FROM_STAGE = "INVALID_FROM_STAGE";

    /** The status of a task. */
    public enum State {
        /** Submitted; the OCR job is queued. */
        PENDING,
        /** The OCR job runs MineRU. */
        MINERU_PARSING,
        /** The post-processing job runs (rules, an LLM, or the skip wrapper). */
        LLM_PROCESSING,
        /** The final JSON was stored. */
        COMPLETED,
        /** A stage failed; the user may retry. */
        FAILED,
        /** Cancelled while pending. */
        CANCELLED
    }

    /** What happens to a task. */
    public enum Event {
        /** The OCR job starts. */
        START_OCR,
        /** The OCR job finished with the markdown key; the post-processing job is chained. */
        OCR_DONE,
        /** The OCR job failed. */
        OCR_FAILED,
        /** The post-processing job finished; the result is finalized. */
        POSTPROCESS_DONE,
        /** The post-processing job failed. */
        POSTPROCESS_FAILED,
        /** {@code POST /cancel}. */
        CANCEL,
        /** {@code POST /retry}, with {@code from_stage} mineru (default) or postprocess. */
        RETRY
    }

    /** A failure must carry its error, which becomes the task's last error. */
    private static final Guard<State> REPORTED = (task, command) ->
            Verdict.when(command.error() != null, ERROR_MISSING, "a failed stage must report its error (code and message)");

    /** The task machine. */
    public static final Machine<State, Event> MACHINE = Machine.builder("etl-task", State.class, Event.class)
            .version(1)
            .initial(State.PENDING)
            .terminal(State.COMPLETED, State.CANCELLED)
            .row(State.PENDING, Event.START_OCR, State.MINERU_PARSING).by(SYSTEM)
                .effect((task, command, changes) -> {
                    changes.put(PHASE, "ocr");
                    changes.put(ATTEMPT_OCR, Attrs.incremented(task, ATTEMPT_OCR));
                    // a new OCR run replaces the markdown of an earlier one
                    changes.put(MARKDOWN_KEY, null);
                })
                .label("etl_ocr_job starts (phase=ocr)").add()
            .row(State.MINERU_PARSING, Event.OCR_DONE, State.LLM_PROCESSING).by(SYSTEM)
                .guard("markdown-pointer", (task, command) -> Verdict.when(
                        Attrs.given(Attrs.effective(task, command, MARKDOWN_KEY)), MARKDOWN_POINTER_MISSING,
                        "a finished OCR stage must report " + MARKDOWN_KEY))
                .effect(startPostprocess())
                .label("OCR done, postprocess job chained (phase=postprocess)").add()
            .row(State.MINERU_PARSING, Event.OCR_FAILED, State.FAILED).by(SYSTEM).guard(ERROR_REPORTED, REPORTED)
                .label("OCR failed").add()
            .row(State.LLM_PROCESSING, Event.POSTPROCESS_DONE, State.COMPLETED).by(SYSTEM)
                .effect((task, command, changes) -> changes.put(PHASE, "finalize"))
                .label("result stored (phase=finalize)").add()
            .row(State.LLM_PROCESSING, Event.POSTPROCESS_FAILED, State.FAILED).by(SYSTEM).guard(ERROR_REPORTED, REPORTED)
                .label("postprocess failed, markdown key kept").add()
            .row(State.PENDING, Event.CANCEL, State.CANCELLED).by(USER).label("POST /cancel (still queued)").add()
            // retry: both rows are guarded, so that a refused postprocess retry never falls back to a full one
            .row(State.FAILED, Event.RETRY, State.LLM_PROCESSING).by(USER)
                .guard("from-stage-postprocess", (task, command) -> {
                    String stage = command.attributes().get(FROM_STAGE);
                    if (!"postprocess".equals(stage)) {
                        return Verdict.refuse(INVALID_FROM_STAGE, FROM_STAGE + " must be mineru or postprocess, was " + stage);
                    }
                    return Verdict.when(Attrs.given(task.attribute(MARKDOWN_KEY)), MARKDOWN_POINTER_MISSING,
                            "no OCR markdown to post-process again: retry from mineru");
                })
                .effect(startPostprocess())
                .label("POST /retry from_stage=postprocess").add()
            .row(State.FAILED, Event.RETRY, State.PENDING).by(USER)
                .guard("from-stage-mineru", (task, command) -> {
                    String stage = command.attributes().get(FROM_STAGE);
                    return Verdict.when(stage == null || "mineru".equals(stage), INVALID_FROM_STAGE,
                            FROM_STAGE + " must be mineru or postprocess, was " + stage);
                })
                .effect((task, command, changes) -> changes.put(PHASE, "ocr"))
                .label("POST /retry from_stage=mineru (default)").add()
            .refuse(State.MINERU_PARSING, Event.CANCEL, TASK_ALREADY_STARTED, "OCR already started; the task is not cancelled")
            .refuse(State.LLM_PROCESSING, Event.CANCEL, TASK_ALREADY_STARTED, "post-processing already started; the task is not cancelled")
            .run(r -> r.claim(State.PENDING, Event.START_OCR)
                    .success(Event.OCR_DONE)
                    .fatal(Event.OCR_FAILED)
                    .cancel(Event.CANCEL)
                    .recoverByFailing()
                    .retry(RetryPolicy.none()))
            .build();

    private EtlTask() {}

    /**
     * Returns the spec of a new task under rule {@code ruleId}, or under the global default rule
     * (post-processing mode {@code skip}) when {@code ruleId} is null.
     *
     * @param ruleId          the user's rule, or null
     * @param postprocessMode the mode of that rule, for example {@code direct-json}; ignored under the default rule
     */
    public static TaskSpec spec(@Nullable String ruleId, String postprocessMode) {
        if (ruleId == null) {
            return TaskSpec.defaults().attribute(RULE_ID, DEFAULT_RULE).attribute(POSTPROCESS_MODE, "skip");
        }
        return TaskSpec.defaults().attribute(RULE_ID, ruleId).attribute(POSTPROCESS_MODE, postprocessMode);
    }

    private static Effect<State> startPostprocess() {
        return (task, command, changes) -> {
            changes.put(PHASE, "postprocess");
            changes.put(ATTEMPT_POSTPROCESS, Attrs.incremented(task, ATTEMPT_POSTPROCESS));
        };
    }
}
