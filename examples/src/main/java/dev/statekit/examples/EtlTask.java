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
 * <p>Stages: the OCR job and the post-processing job are the machine's two stages, each claimed by
 * a runtime under a lease on its own queue ({@value #OCR_QUEUE}, {@value #POSTPROCESS_QUEUE}). The
 * OCR stage claims pending tasks with {@link Event#START_OCR} into {@code MINERU_PARSING}; its
 * success {@link Event#OCR_DONE} (carrying {@value #MARKDOWN_KEY}) chains the post-processing job
 * in the same write by entering {@code POSTPROCESS_QUEUED}; its failure is {@link Event#OCR_FAILED};
 * the table has no row back to {@code PENDING}, so an OCR job whose lease expired fails the task
 * ({@code LEASE_EXPIRED}), which the user may retry. The post-processing stage claims
 * {@code POSTPROCESS_QUEUED} with {@link Event#START_POSTPROCESS} into {@code LLM_PROCESSING}
 * (counting {@value #ATTEMPT_POSTPROCESS}); its results are {@link Event#POSTPROCESS_DONE} and
 * {@link Event#POSTPROCESS_FAILED}, and a job whose process died is put back in its queue by
 * {@link Event#POSTPROCESS_RELEASE}, in any process that serves the stage. {@code POSTPROCESS_QUEUED}
 * is shown as the seed's status {@code llm_processing}: the seed's status values are kept.
 * {@link Event#CANCEL} is the cancel event: a cancel of a started task is refused with
 * {@value #TASK_ALREADY_STARTED}.
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
    /** The stage that runs MineRU. */
    public static final String OCR_STAGE = "ocr";
    /** The stage that post-processes the markdown. */
    public static final String POSTPROCESS_STAGE = "postprocess";
    /** The queue of the OCR jobs. */
    public static final String OCR_QUEUE = "etl-ocr";
    /** The queue of the post-processing jobs. */
    public static final String POSTPROCESS_QUEUE = "etl-postprocess";
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
        /**
         * The post-processing job is queued (chained by the OCR job, or by a retry from postprocess);
         * the seed's status shows it as {@code llm_processing}.
         */
        POSTPROCESS_QUEUED,
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
        /** The post-processing job starts. */
        START_POSTPROCESS,
        /** The post-processing job is put back in its queue (its worker stopped, or its lease expired). */
        POSTPROCESS_RELEASE,
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
            .row(State.MINERU_PARSING, Event.OCR_DONE, State.POSTPROCESS_QUEUED).by(SYSTEM)
                .guard("markdown-pointer", (task, command) -> Verdict.when(
                        Attrs.given(Attrs.effective(task, command, MARKDOWN_KEY)), MARKDOWN_POINTER_MISSING,
                        "a finished OCR stage must report " + MARKDOWN_KEY))
                .effect((task, command, changes) -> changes.put(PHASE, "postprocess"))
                .label("OCR done, postprocess job chained (phase=postprocess)").add()
            .row(State.POSTPROCESS_QUEUED, Event.START_POSTPROCESS, State.LLM_PROCESSING).by(SYSTEM)
                .effect(startPostprocess())
                .label("etl_postprocess_job starts").add()
            .row(State.LLM_PROCESSING, Event.POSTPROCESS_RELEASE, State.POSTPROCESS_QUEUED).by(SYSTEM)
                .label("postprocess job back in its queue (lease expired, worker stopped)").add()
            .row(State.MINERU_PARSING, Event.OCR_FAILED, State.FAILED).by(SYSTEM).guard(ERROR_REPORTED, REPORTED)
                .label("OCR failed").add()
            .row(State.LLM_PROCESSING, Event.POSTPROCESS_DONE, State.COMPLETED).by(SYSTEM)
                .effect((task, command, changes) -> changes.put(PHASE, "finalize"))
                .label("result stored (phase=finalize)").add()
            .row(State.LLM_PROCESSING, Event.POSTPROCESS_FAILED, State.FAILED).by(SYSTEM).guard(ERROR_REPORTED, REPORTED)
                .label("postprocess failed, markdown key kept").add()
            .row(State.PENDING, Event.CANCEL, State.CANCELLED).by(USER).label("POST /cancel (still queued)").add()
            // retry: both rows are guarded, so that a refused postprocess retry never falls back to a full one
            .row(State.FAILED, Event.RETRY, State.POSTPROCESS_QUEUED).by(USER)
                .guard("from-stage-postprocess", (task, command) -> {
                    String stage = command.attributes().get(FROM_STAGE);
                    if (!"postprocess".equals(stage)) {
                        return Verdict.refuse(INVALID_FROM_STAGE, FROM_STAGE + " must be mineru or postprocess, was " + stage);
                    }
                    return Verdict.when(Attrs.given(task.attribute(MARKDOWN_KEY)), MARKDOWN_POINTER_MISSING,
                            "no OCR markdown to post-process again: retry from mineru");
                })
                .effect((task, command, changes) -> changes.put(PHASE, "postprocess"))
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
            .refuse(State.POSTPROCESS_QUEUED, Event.CANCEL, TASK_ALREADY_STARTED, "post-processing already chained; the task is not cancelled")
            .refuse(State.LLM_PROCESSING, Event.CANCEL, TASK_ALREADY_STARTED, "post-processing already started; the task is not cancelled")
            .stage(OCR_STAGE, r -> r.queue(OCR_QUEUE)
                    .claim(State.PENDING, Event.START_OCR)
                    .success(Event.OCR_DONE)
                    .fatal(Event.OCR_FAILED)
                    .cancel(Event.CANCEL)
                    .recoverByFailing()
                    .retry(RetryPolicy.none()))
            .stage(POSTPROCESS_STAGE, r -> r.queue(POSTPROCESS_QUEUE)
                    .claim(State.POSTPROCESS_QUEUED, Event.START_POSTPROCESS)
                    .success(Event.POSTPROCESS_DONE)
                    .fatal(Event.POSTPROCESS_FAILED)
                    .release(Event.POSTPROCESS_RELEASE)
                    .recoverByRequeue()
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
