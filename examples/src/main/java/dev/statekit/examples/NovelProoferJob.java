package dev.statekit.examples;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Guard;
import dev.statekit.core.Machine;
import dev.statekit.core.Verdict;
import java.util.Objects;

/**
 * The novel-proofer job: the run state of one proofreading job ({@code queued|running|paused|
 * done|error|cancelled}), with its workflow phase ({@code validate|process|merge|done}) kept
 * beside it as the attribute {@value #PHASE}.
 *
 * <p>Effects set the phase exactly as the seed's job diagram labels each edge; guards on the
 * phase make sure a user can only run the step the job is gated at ({@link Event#START_PROCESS}
 * and {@link Event#PAUSE} in phase {@code process}, {@link Event#MERGE} in phase {@code merge})
 * and that workers report the end of the step that is running. Every edge of the diagram has its
 * own event.
 *
 * <p>The chunks are the job's children, created with {@link Event#START_PROCESS} in the same write.
 * The group resolver ends the process phase: {@link Event#PROCESS_DONE} once every chunk is done,
 * {@link Event#PROCESS_FAILED} once every chunk has ended and some are in error, recording the
 * number of done chunks as {@value #DONE_CHUNKS}. While the job is paused or queued its pending
 * chunks are held, and a pause asks the processing ones to stop (they go back to pending); a reset
 * stops them all.
 */
public final class NovelProoferJob {
    /** The attribute holding the workflow phase. */
    public static final String PHASE = "phase";
    /** Phase: decoding, chunking and deterministic pre-processing. */
    public static final String VALIDATE = "validate";
    /** Phase: LLM proofreading of the chunks. */
    public static final String PROCESS = "process";
    /** Phase: waiting for, or running, the user's merge of the output. */
    public static final String MERGE = "merge";
    /** Phase: the output was merged. */
    public static final String DONE = "done";
    /** The job attribute holding how many chunks were done when processing ended. */
    public static final String DONE_CHUNKS = "done_chunks";
    /** The refusal code of a guard when the job is not in the phase an event needs. */
    public static final String PHASE_MISMATCH = "PHASE_MISMATCH";

    /** The run state of a job. */
    public enum State {
        /** Submitted, waiting for the background pool. */
        QUEUED,
        /** A background step (validate, process or merge) is running. */
        RUNNING,
        /** Resumable and not running: waiting for the user. */
        PAUSED,
        /** Merged: the final output exists. */
        DONE,
        /** Failed, usually because chunks ended in error. */
        ERROR,
        /** Deleted by reset: a hard delete signal, never resumed. */
        CANCELLED
    }

    /** What happens to a job; one event per edge of the seed's job diagram. */
    public enum Event {
        /** The pool starts the queued job: validation, or processing again after retry-failed. */
        START,
        /** Validation finished; the job waits for the user to start processing. */
        VALIDATE_DONE,
        /** The user starts (or resumes) processing. */
        START_PROCESS,
        /** The user pauses processing ({@code /pause}); the phase is unchanged. */
        PAUSE,
        /** Processing failed (chunks ended in error). */
        PROCESS_FAILED,
        /** The user retries the failed chunks ({@code /retry-failed}). */
        RETRY_FAILED,
        /** Every chunk is done; the job waits for the user to merge. */
        PROCESS_DONE,
        /** The user merges the output ({@code /merge}). */
        MERGE,
        /** The merge finished. */
        MERGE_DONE,
        /** The user deletes the job ({@code /reset}). */
        RESET
    }

    /**
     * The job machine.
     *
     * <p>{@link Event#START} sets the phase to {@code validate}, except for a job queued again by
     * {@link Event#RETRY_FAILED}: it keeps phase {@code process}, since validation already ran and
     * only its failed chunks are to be processed again. The diagram draws a single
     * {@code queued --> running} edge, so this is one row with that rule in its effect.
     */
    public static final Machine<State, Event> MACHINE = Machine.builder("novel-proofer-job", State.class, Event.class)
            .version(1)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.CANCELLED)
            .row(State.QUEUED, Event.START, State.RUNNING).by(SYSTEM)
                .effect((task, command, changes) ->
                        changes.put(PHASE, PROCESS.equals(task.attribute(PHASE)) ? PROCESS : VALIDATE))
                .label("validate (phase=validate; after retry-failed phase stays process)").add()
            .row(State.RUNNING, Event.VALIDATE_DONE, State.PAUSED).by(SYSTEM)
                .guard("phase-validate", inPhase(VALIDATE, Event.VALIDATE_DONE))
                .effect((task, command, changes) -> changes.put(PHASE, PROCESS))
                .label("validate done (phase=process)").add()
            .row(State.PAUSED, Event.START_PROCESS, State.RUNNING).by(USER)
                .guard("phase-process", inPhase(PROCESS, Event.START_PROCESS))
                .label("start process or resume (phase=process)").add()
            .row(State.RUNNING, Event.PAUSE, State.PAUSED).by(USER)
                .guard("phase-process", inPhase(PROCESS, Event.PAUSE))
                .label("/pause (phase unchanged)").add()
            .row(State.RUNNING, Event.PROCESS_FAILED, State.ERROR).by(SYSTEM)
                .guard("phase-process", inPhase(PROCESS, Event.PROCESS_FAILED))
                .label("process error (phase=process)").add()
            .row(State.ERROR, Event.RETRY_FAILED, State.QUEUED).by(USER)
                .label("/retry-failed (failed chunks back to pending)").add()
            .row(State.RUNNING, Event.PROCESS_DONE, State.PAUSED).by(SYSTEM)
                .guard("phase-process", inPhase(PROCESS, Event.PROCESS_DONE))
                .effect((task, command, changes) -> changes.put(PHASE, MERGE))
                .label("process done (phase=merge)").add()
            .row(State.PAUSED, Event.MERGE, State.RUNNING).by(USER)
                .guard("phase-merge", inPhase(MERGE, Event.MERGE))
                .label("/merge (phase=merge)").add()
            .row(State.RUNNING, Event.MERGE_DONE, State.DONE).by(SYSTEM)
                .guard("phase-merge", inPhase(MERGE, Event.MERGE_DONE))
                .effect((task, command, changes) -> changes.put(PHASE, DONE))
                .label("merge done (phase=done)").add()
            .row(State.QUEUED, Event.RESET, State.CANCELLED).by(USER).label("/reset (hard delete)").add()
            .row(State.RUNNING, Event.RESET, State.CANCELLED).by(USER).label("/reset (hard delete)").add()
            .row(State.PAUSED, Event.RESET, State.CANCELLED).by(USER).label("/reset (hard delete)").add()
            .row(State.ERROR, Event.RESET, State.CANCELLED).by(USER).label("/reset (hard delete)").add()
            .children(NovelProoferChunk.MACHINE, c -> c
                    .whenSucceeded(Event.PROCESS_DONE)
                    .whenFailed(Event.PROCESS_FAILED)
                    .recordSucceededAs(DONE_CHUNKS)
                    .holdIn(State.PAUSED, State.QUEUED)
                    .stopIn(State.PAUSED)
                    .cancelIn(State.CANCELLED))
            .build();

    private NovelProoferJob() {}

    private static Guard<State> inPhase(String phase, Event event) {
        return (task, command) -> {
            String actual = task.attribute(PHASE);
            return Verdict.when(Objects.equals(phase, actual), PHASE_MISMATCH,
                    event.name() + " needs phase " + phase + ", but the job is in phase " + (actual == null ? "(none)" : actual));
        };
    }
}
