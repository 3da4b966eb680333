package dev.statekit.examples;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Command;
import dev.statekit.core.Effect;
import dev.statekit.core.Guard;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.Task;
import dev.statekit.core.Verdict;
import dev.statekit.store.TaskError;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The Read→Do item: a captured link on its way through the processing pipeline (extract,
 * summarize, score, todos, card) to a ready, exported or archived item.
 *
 * <p>The table is the contract's transition table, with the trigger sources it gives, plus what
 * its routing rules require and the table leaves out: export failure, regenerate from
 * {@code READY}, archive from {@code CAPTURED} and {@code QUEUED}, the lease timeout and
 * {@code POST /process} from {@code CAPTURED} and {@code ARCHIVED}. There is no terminal state:
 * every state has an exit.
 *
 * <p>Attributes:
 * <ul>
 *   <li>{@value #RUN_ID}: the pipeline run the item is on, {@code run-N}, assigned by
 *       {@link Event#LEASE} (which counts {@value #RUNS}).</li>
 *   <li>{@code summary_run_id}, {@code score_run_id}, {@code todos_run_id}, {@code card_run_id}:
 *       the run that wrote the latest version of each required artifact. The item is READY only
 *       when all four carry the current run id (the gate {@value #ARTIFACTS_COMPLETE}).</li>
 *   <li>{@value #ARCHIVE_REASON}: {@code USER_ARCHIVE}, {@code SYSTEM_SKIP} or
 *       {@code FAILURE_ARCHIVE}.</li>
 * </ul>
 *
 * <p>The contract's failure fields ({@code failed_step}, {@code error_code}, {@code message},
 * {@code retryable}) are the record's {@code lastError()}: a failure report carries them as
 * {@link Command#error()} (a {@link TaskError} with code, message, retryable and step), the guards
 * check them there, and the engine records them as the item's last error. The host shows them while
 * the item is {@code FAILED_*}. The contract's {@code lease_owner} and {@code lease_expires_at} are
 * the record's lease.
 *
 * <p>Run policy: a runtime claims queued items with {@link Event#LEASE} (the lease-acquire) into
 * {@code PROCESSING}; a worker's success is {@link Event#PIPELINE_SUCCEEDED}, which the READY gate
 * still checks, and any failure is {@link Event#STEP_FAILED}, which the failure's step sends to
 * {@code FAILED_EXTRACTION} or {@code FAILED_AI}. There are no in-place retries: a retryable
 * failure ends in {@code FAILED_*} with a retryable last error, from where the contract's retry
 * ({@link Event#PROCESS}, {@link Event#AUTO_RETRY}) queues it again. {@link Event#LEASE_EXPIRED}
 * is the release and the recovery of an expired lease. A claim applies the row
 * {@code QUEUED → PROCESSING} with its effect, which counts {@value #RUNS} and names the run.
 * The auto-enqueue is the run policy's wait on {@code CAPTURED}: a runtime fires
 * {@link Event#ENQUEUE} on a captured item whose not-before time has come, so an item created
 * with one is enqueued by whichever process looks next, even when its capture's own enqueue was
 * lost with its process.
 */
public final class ReadDoItem {
    /** The attribute holding the current pipeline run id. */
    public static final String RUN_ID = "run_id";
    /** The attribute counting pipeline runs. */
    public static final String RUNS = "runs";
    /** The required artifacts of a READY item. */
    public static final List<String> REQUIRED_ARTIFACTS = List.of("summary", "score", "todos", "card");
    /** The attribute telling why the item was archived. */
    public static final String ARCHIVE_REASON = "archive_reason";
    /** The command attribute of {@link Event#UNARCHIVE} asking to process the item again ({@code true}). */
    public static final String REGENERATE = "regenerate";

    /** The name of the READY gate, and of the guard that checks it. */
    public static final String ARTIFACTS_COMPLETE = "artifacts-complete";
    /** The refusal code of the READY gate. */
    public static final String ARTIFACTS_INCOMPLETE = "ARTIFACTS_INCOMPLETE";
    /** The named refusal of {@code /process} and {@code /archive} while the item is being processed. */
    public static final String PROCESSING_IN_PROGRESS = "PROCESSING_IN_PROGRESS";
    /** The refusal code of a failure report that lacks its required fields. */
    public static final String FAILURE_UNDESCRIBED = "FAILURE_UNDESCRIBED";
    /** The refusal code of an automatic retry of a failure that is not retryable. */
    public static final String NOT_RETRYABLE = "NOT_RETRYABLE";
    /** The refusal code of the READY row of {@code /unarchive} when the user asked to regenerate. */
    public static final String REGENERATE_REQUESTED = "REGENERATE_REQUESTED";

    private static final Set<String> AI_STEPS = Set.of("summarize", "score", "todos", "card");

    /** The state of an item. */
    public enum State {
        /** Captured and stored (facts and intent). */
        CAPTURED,
        /** Waiting for a worker. */
        QUEUED,
        /** A worker holds the lease and runs the pipeline. */
        PROCESSING,
        /** Every required artifact of the current run is written: decide, act or export. */
        READY,
        /** Extracting the text failed. */
        FAILED_EXTRACTION,
        /** An AI step (summarize, score, todos, card) failed. */
        FAILED_AI,
        /** Exporting the card failed. */
        FAILED_EXPORT,
        /** The card was exported, or the user marked the item shipped. */
        SHIPPED,
        /** Archived by the user (including skipped items). */
        ARCHIVED
    }

    /** What happens to an item. */
    public enum Event {
        /** The system enqueues a captured item. */
        ENQUEUE,
        /** {@code POST /process}: process, retry or regenerate. */
        PROCESS,
        /** The system retries a retryable failure. */
        AUTO_RETRY,
        /** A worker acquires the processing lease. */
        LEASE,
        /** The processing lease timed out; the item goes back to the queue. */
        LEASE_EXPIRED,
        /** The pipeline succeeded; the report carries the artifacts' run ids. */
        PIPELINE_SUCCEEDED,
        /** The extract step failed. */
        EXTRACTION_FAILED,
        /** An AI step failed. */
        AI_FAILED,
        /**
         * A pipeline step failed, the step named by its error ({@link TaskError#step()}): {@code extract}
         * leads to {@code FAILED_EXTRACTION}, an AI step to {@code FAILED_AI}. The runtime's fatal event.
         */
        STEP_FAILED,
        /** {@code POST /export} succeeded. */
        EXPORT_SUCCEEDED,
        /** {@code POST /export} failed. */
        EXPORT_FAILED,
        /** The user marks the item shipped without an export. */
        MARK_SHIPPED,
        /** {@code POST /archive}. */
        ARCHIVE,
        /** {@code POST /unarchive}, with {@code regenerate=true} to process the item again. */
        UNARCHIVE
    }

    /** The failed states, {@code FAILED_*} in the contract. */
    private static final Set<State> FAILED = EnumSet.of(State.FAILED_EXTRACTION, State.FAILED_AI, State.FAILED_EXPORT);

    private static final Guard<State> FAILURE_DESCRIBED = (task, command) -> describes(command, false);
    private static final Guard<State> AI_FAILURE_DESCRIBED = (task, command) -> describes(command, true);

    /** Processing (again) starts from a clean slate: no archive reason, no request flag. */
    private static final Effect<State> REQUEUE = (task, command, changes) -> {
        changes.put(ARCHIVE_REASON, null);
        changes.put(REGENERATE, null);
    };

    private static final Effect<State> ARCHIVE_EFFECT = (task, command, changes) -> {
        String reason = command.attributes().get(ARCHIVE_REASON);
        if (!Attrs.given(reason)) {
            changes.put(ARCHIVE_REASON, FAILED.contains(task.state()) ? "FAILURE_ARCHIVE" : "USER_ARCHIVE");
        }
    };

    /** The item machine. */
    public static final Machine<State, Event> MACHINE = Machine.builder("read-do-item", State.class, Event.class)
            .version(1)
            .initial(State.CAPTURED)
            // enqueue and lease
            .row(State.CAPTURED, Event.ENQUEUE, State.QUEUED).by(SYSTEM).label("auto-enqueue").add()
            .row(State.CAPTURED, Event.PROCESS, State.QUEUED).by(USER).effect(REQUEUE).label("POST /process").add()
            .row(State.QUEUED, Event.LEASE, State.PROCESSING).by(SYSTEM)
                .effect((task, command, changes) -> {
                    String runs = Attrs.incremented(task, RUNS);
                    changes.put(RUNS, runs);
                    changes.put(RUN_ID, "run-" + runs);
                })
                .label("worker lease-acquire (new run_id)").add()
            .row(State.PROCESSING, Event.LEASE_EXPIRED, State.QUEUED).by(SYSTEM).label("lease timeout, reclaimed").add()
            // pipeline outcome
            .row(State.PROCESSING, Event.PIPELINE_SUCCEEDED, State.READY).by(SYSTEM)
                .guard(ARTIFACTS_COMPLETE, (task, command) -> artifactsComplete(task, command))
                .label("pipeline success").add()
            .row(State.PROCESSING, Event.EXTRACTION_FAILED, State.FAILED_EXTRACTION).by(SYSTEM)
                .guard("failure-described", FAILURE_DESCRIBED)
                .label("step failure (failed_step=extract)").add()
            .row(State.PROCESSING, Event.AI_FAILED, State.FAILED_AI).by(SYSTEM)
                .guard("ai-failure-described", AI_FAILURE_DESCRIBED)
                .label("step failure (failed_step=summarize, score, todos or card)").add()
            // The contract's trigger of both failure rows is "step failure": one event whose
            // failed_step decides the target. A runtime has a single fatal event, and this is it.
            .row(State.PROCESSING, Event.STEP_FAILED, State.FAILED_EXTRACTION).by(SYSTEM)
                .guard("failed-step-extract", (task, command) -> stepFailure(command, false))
                .label("step failure, failed_step=extract").add()
            .row(State.PROCESSING, Event.STEP_FAILED, State.FAILED_AI).by(SYSTEM)
                .guard("failed-step-ai", (task, command) -> stepFailure(command, true))
                .label("step failure, failed_step=summarize, score, todos or card").add()
            // export: success from READY, FAILED_EXPORT (retry export) and SHIPPED (re-export)
            .row(State.READY, Event.EXPORT_SUCCEEDED, State.SHIPPED).by(SYSTEM, USER).label("export success").add()
            .row(State.READY, Event.MARK_SHIPPED, State.SHIPPED).by(USER).label("user marks shipped").add()
            .row(State.FAILED_EXPORT, Event.EXPORT_SUCCEEDED, State.SHIPPED).by(USER, SYSTEM)
                .label("POST /export (retry export)").add()
            .row(State.SHIPPED, Event.EXPORT_SUCCEEDED, State.SHIPPED).by(USER, SYSTEM).label("re-export").add()
            // Export failure. The routing rules allow export from READY, SHIPPED and FAILED_EXPORT
            // and send a failure to FAILED_EXPORT. From READY and FAILED_EXPORT (a failed retry)
            // that is what happens. A shipped item stays SHIPPED: its earlier export was delivered
            // and stands, so a failed re-export only records its error as the last error (the
            // rules' alternative of keeping the state and recording the export failure).
            .row(State.READY, Event.EXPORT_FAILED, State.FAILED_EXPORT).by(SYSTEM, USER)
                .guard("failure-described", FAILURE_DESCRIBED)
                .label("export failure (failed_step=export)").add()
            .row(State.FAILED_EXPORT, Event.EXPORT_FAILED, State.FAILED_EXPORT).by(SYSTEM, USER)
                .guard("failure-described", FAILURE_DESCRIBED)
                .label("retry export failed").add()
            .row(State.SHIPPED, Event.EXPORT_FAILED, State.SHIPPED).by(SYSTEM, USER)
                .guard("failure-described", FAILURE_DESCRIBED)
                .label("re-export failed, earlier export stands").add()
            // retry and regenerate
            .row(State.FAILED_EXTRACTION, Event.PROCESS, State.QUEUED).by(USER).effect(REQUEUE).label("POST /process (retry)").add()
            .row(State.FAILED_AI, Event.PROCESS, State.QUEUED).by(USER).effect(REQUEUE).label("POST /process (retry)").add()
            .row(State.FAILED_EXPORT, Event.PROCESS, State.QUEUED).by(USER).effect(REQUEUE).label("POST /process (retry)").add()
            .row(State.FAILED_EXTRACTION, Event.AUTO_RETRY, State.QUEUED).by(SYSTEM)
                .guard("retryable", ReadDoItem::retryable).effect(REQUEUE).label("auto-retry").add()
            .row(State.FAILED_AI, Event.AUTO_RETRY, State.QUEUED).by(SYSTEM)
                .guard("retryable", ReadDoItem::retryable).effect(REQUEUE).label("auto-retry").add()
            .row(State.FAILED_EXPORT, Event.AUTO_RETRY, State.QUEUED).by(SYSTEM)
                .guard("retryable", ReadDoItem::retryable).effect(REQUEUE).label("auto-retry").add()
            .row(State.READY, Event.PROCESS, State.QUEUED).by(USER).effect(REQUEUE)
                .label("POST /process (regenerate, new artifact versions)").add()
            .row(State.ARCHIVED, Event.PROCESS, State.QUEUED).by(USER).effect(REQUEUE)
                .label("POST /process (unarchive and regenerate)").add()
            // archive
            .row(State.CAPTURED, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            .row(State.QUEUED, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            .row(State.READY, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            .row(State.FAILED_EXTRACTION, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            .row(State.FAILED_AI, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            .row(State.FAILED_EXPORT, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            .row(State.SHIPPED, Event.ARCHIVE, State.ARCHIVED).by(USER).effect(ARCHIVE_EFFECT).label("POST /archive").add()
            // unarchive: READY when the artifacts are complete and no regenerate was asked, else QUEUED
            .row(State.ARCHIVED, Event.UNARCHIVE, State.READY).by(USER)
                .guard("artifacts-complete-no-regenerate", (task, command) -> {
                    if ("true".equals(command.attributes().get(REGENERATE))) {
                        return Verdict.refuse(REGENERATE_REQUESTED, "the user asked to regenerate");
                    }
                    return artifactsComplete(task, command);
                })
                .effect((task, command, changes) -> {
                    changes.put(ARCHIVE_REASON, null);
                    changes.put(REGENERATE, null);
                })
                .label("POST /unarchive (artifacts kept)").add()
            .row(State.ARCHIVED, Event.UNARCHIVE, State.QUEUED).by(USER).effect(REQUEUE)
                .label("POST /unarchive (regenerate, or artifacts incomplete)").add()
            .refuse(State.PROCESSING, Event.PROCESS, PROCESSING_IN_PROGRESS,
                    "the item is being processed; it cannot be processed twice at once")
            .refuse(State.PROCESSING, Event.ARCHIVE, PROCESSING_IN_PROGRESS,
                    "the item is being processed; archive it once processing ended")
            .run(r -> r.claim(State.QUEUED, Event.LEASE)
                    .afterWait(State.CAPTURED, Event.ENQUEUE)
                    .success(Event.PIPELINE_SUCCEEDED)
                    .fatal(Event.STEP_FAILED)
                    .release(Event.LEASE_EXPIRED)
                    .recoverByRequeue()
                    .retry(RetryPolicy.none()))
            .build();

    private ReadDoItem() {}

    /** Returns the attribute holding the run id of the latest version of {@code artifact}. */
    public static String artifactKey(String artifact) {
        return artifact + "_run_id";
    }

    /**
     * The READY gate: every required artifact carries the current run id (as the task will be
     * after the command's own attribute changes).
     */
    static Verdict artifactsComplete(Task<State> task, Command command) {
        String run = Attrs.effective(task, command, RUN_ID);
        if (!Attrs.given(run)) return Verdict.refuse(ARTIFACTS_INCOMPLETE, "the item has no pipeline run");
        List<String> missing = new ArrayList<>();
        for (String artifact : REQUIRED_ARTIFACTS) {
            if (!run.equals(Attrs.effective(task, command, artifactKey(artifact)))) missing.add(artifact);
        }
        return Verdict.when(missing.isEmpty(), ARTIFACTS_INCOMPLETE,
                "artifacts of run " + run + " missing: " + String.join(", ", missing));
    }

    private static Verdict retryable(Task<State> task, Command command) {
        TaskError error = task.record().lastError();
        return Verdict.when(error != null && error.retryable(), NOT_RETRYABLE,
                "the failure " + (error == null ? "(none)" : error.code()) + " is not retryable");
    }

    /** The guard of {@link Event#STEP_FAILED}: a described failure of the extract step, or of an AI step. */
    private static Verdict stepFailure(Command command, boolean aiStep) {
        Verdict described = describes(command, aiStep);
        if (!described.allowed() || aiStep) return described;
        String step = Objects.requireNonNull(command.error()).step();
        return Verdict.when("extract".equals(step), FAILURE_UNDESCRIBED,
                "an extraction failure needs the step extract, was " + step);
    }

    private static Verdict describes(Command command, boolean aiStep) {
        TaskError error = command.error();
        if (error == null || !Attrs.given(error.message())) {
            return Verdict.refuse(FAILURE_UNDESCRIBED, "a failure report needs an error with a code and a message");
        }
        String step = error.step();
        if (aiStep && (step == null || !AI_STEPS.contains(step))) {
            return Verdict.refuse(FAILURE_UNDESCRIBED, "an AI failure needs a step in " + AI_STEPS.stream().sorted().toList());
        }
        return Verdict.allow();
    }
}
