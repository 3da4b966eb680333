package dev.statekit.examples;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Effect;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.Verdict;
import java.time.Duration;
import java.util.EnumSet;

/**
 * The compression task of a local compression app whose queue runs one task at a time.
 *
 * <p>"Only one task is {@code RUNNING}" spans tasks, so the queue's scheduler keeps it (it fires
 * {@link Event#START} only when nothing runs); each task's own lifecycle is this machine. A
 * running compression cannot be paused and resumed losslessly, so {@link Event#PAUSE} holds a
 * single queued task and is refused for a running one ({@value #RUNNING_NOT_PAUSABLE}); pausing the
 * whole queue is the scheduler's switch, not a task state. The other refusals a user meets are
 * named too: skipping a running task ({@value #TASK_ALREADY_STARTED}) or one that does not wait in
 * the queue ({@value #NOT_QUEUED}), retrying a task that has not failed ({@value #NOT_FAILED}),
 * cancelling one that has ended ({@value #TASK_FINISHED}).
 *
 * <p>Attributes: {@value #BLOCKED_REASON} while blocked (for example {@code disk_space}), which the
 * runtime sets with {@link Event#BLOCK} and removes with {@link Event#UNBLOCK};
 * {@value #CANCEL_REASON} ({@code canceled}, or {@code skipped} after {@link Event#SKIP}), since the
 * seed shows a skipped task as canceled. The rest of what the seed persists is the task record's:
 * the automatic retries so far ({@code retries()}, counted and spaced by {@link #RETRY_POLICY}),
 * why the latest attempt failed ({@code lastError()}, kept after a later success), and the place
 * in the queue (priority, then the FIFO sequence, which a manual retry and an automatic recovery
 * move to the front of the task's priority).
 *
 * <p>Run policy: a runtime is the scheduler. It claims queued tasks with {@link Event#START}
 * (priority {@link #HIGH}, {@link #NORMAL} or {@link #LOW}, then FIFO; the queue's concurrency
 * limit of 1 keeps a single task running across every runtime on the store). A worker's success is
 * {@link Event#SUCCEED}; a retryable error is {@link Event#RETRYABLE_ERROR}, and after the back-off
 * of {@link #RETRY_POLICY} the runtime fires {@link Event#BACKOFF_ELAPSED}; a fatal error, or a
 * retryable one past the retries, is {@link Event#FAIL}. {@link Event#CANCEL} cancels a queued task
 * at once and a running one at its worker's next safe point. A failing precondition (free disk
 * space) moves a queued task to {@code BLOCKED} ({@link Event#BLOCK}) and back
 * ({@link Event#UNBLOCK}). A task whose lease is lost to a crash is {@code INTERRUPTED}, then
 * re-queued at the front once ({@link Event#RECOVER}) or failed ({@link Event#FAIL}), as
 * {@link #machine(boolean)} chooses. There is no release row: no row leads from {@code RUNNING} back
 * to {@code QUEUED}; a task still running when its runtime stops past its grace goes back to
 * {@code QUEUED} by the runtime's own release (recorded {@code RELEASE}), and only a task whose
 * runtime died is recovered as interrupted.
 */
public final class CompressionTask {
    /** The longest back-off, in seconds. */
    public static final int MAX_BACKOFF_SECONDS = 30;
    /** The attribute holding why a task is blocked. */
    public static final String BLOCKED_REASON = "blocked_reason";
    /** The attribute holding why a task was canceled: canceled or skipped. */
    public static final String CANCEL_REASON = "cancel_reason";

    /** The priority of a High task: larger runs first. */
    public static final int HIGH = 10;
    /** The priority of a Normal task (the default). */
    public static final int NORMAL = 0;
    /** The priority of a Low task. */
    public static final int LOW = -10;

    /** The named refusal of pausing a running task. */
    public static final String RUNNING_NOT_PAUSABLE = "RUNNING_NOT_PAUSABLE";
    /** The refusal code of blocking a task without a reason. */
    public static final String BLOCK_REASON_MISSING = "BLOCK_REASON_MISSING";
    /** The named refusal of skipping a task that already started. */
    public static final String TASK_ALREADY_STARTED = "TASK_ALREADY_STARTED";
    /** The named refusal of skipping a task that is not waiting in the queue. */
    public static final String NOT_QUEUED = "NOT_QUEUED";
    /** The named refusal of retrying a task that has not failed. */
    public static final String NOT_FAILED = "NOT_FAILED";
    /** The named refusal of cancelling a task that has ended. */
    public static final String TASK_FINISHED = "TASK_FINISHED";

    /** The state of a task. */
    public enum State {
        /** Created, not yet queued: a short-lived state. */
        CREATED,
        /** Waiting to run. */
        QUEUED,
        /** Compressing; at most one task of the queue at a time. */
        RUNNING,
        /** Backing off before an automatic retry. */
        RETRYING,
        /** A single queued task held by the user. */
        PAUSED,
        /** Canceled or skipped; never runs again. */
        CANCELED,
        /** Compressed successfully. */
        COMPLETED,
        /** Failed: retries exhausted or a non-retryable error. */
        FAILED,
        /** The app exited or crashed while the task ran. */
        INTERRUPTED,
        /** A precondition such as free disk space does not hold. */
        BLOCKED
    }

    /** What happens to a task. */
    public enum Event {
        /** The task entered the queue. */
        ENQUEUE,
        /** The scheduler starts the task (nothing else runs). */
        START,
        /** Compression finished. */
        SUCCEED,
        /** A non-retryable error, retries exhausted, or an interrupted task not recovered. */
        FAIL,
        /** A retryable error (temporary I/O, permission, busy resource). */
        RETRYABLE_ERROR,
        /** The back-off elapsed. */
        BACKOFF_ELAPSED,
        /** The user retries a failed task. */
        RETRY,
        /** Found running after a crash or exit. */
        INTERRUPT,
        /** Automatic recovery of an interrupted task. */
        RECOVER,
        /** The user cancels the task. */
        CANCEL,
        /** The user skips a queued task. */
        SKIP,
        /** A precondition (for example disk space) fails before the start. */
        BLOCK,
        /** The precondition holds again. */
        UNBLOCK,
        /** The user holds a queued task. */
        PAUSE,
        /** The user releases a held task. */
        RESUME
    }

    private static final Effect<State> CANCELED_BY_USER = (task, command, changes) -> {
        if (!Attrs.given(command.attributes().get(CANCEL_REASON))) changes.put(CANCEL_REASON, "canceled");
    };

    /** The automatic retries: at most 3, after 1 s, 2 s, 4 s … at most 30 s, each shortened by up to a fifth at random. */
    public static final RetryPolicy RETRY_POLICY =
            RetryPolicy.exponential(3, Duration.ofSeconds(1), Duration.ofSeconds(MAX_BACKOFF_SECONDS))
                    .withJitter(0.2);

    /** The compression task machine, whose interrupted tasks are recovered automatically once. */
    public static final Machine<State, Event> MACHINE = build(true);

    /** The same machine with automatic recovery off: an interrupted task fails. */
    private static final Machine<State, Event> WITHOUT_AUTO_RECOVERY = build(false);

    /**
     * Returns the machine with automatic recovery of interrupted tasks on ({@link #MACHINE}: back to
     * the front of the queue, once) or off (the task fails and waits for a manual retry).
     */
    public static Machine<State, Event> machine(boolean autoRecover) {
        return autoRecover ? MACHINE : WITHOUT_AUTO_RECOVERY;
    }

    private static Machine<State, Event> build(boolean autoRecover) {
        var b = Machine.builder("compression-task", State.class, Event.class)
                .version(1)
                .initial(State.CREATED)
                .terminal(State.COMPLETED, State.CANCELED)
                .row(State.CREATED, Event.ENQUEUE, State.QUEUED).by(SYSTEM).label("enqueued").add()
                .row(State.QUEUED, Event.START, State.RUNNING).by(SYSTEM).label("scheduler starts it, nothing running").add()
                .row(State.RUNNING, Event.SUCCEED, State.COMPLETED).by(SYSTEM).label("success").add()
                .row(State.RUNNING, Event.FAIL, State.FAILED).by(SYSTEM).label("non-retryable or retries exhausted").add()
                .row(State.RUNNING, Event.RETRYABLE_ERROR, State.RETRYING).by(SYSTEM).label("retryable error, exponential backoff").add()
                .row(State.RETRYING, Event.BACKOFF_ELAPSED, State.QUEUED).by(SYSTEM).label("backoff elapsed").add()
                .row(State.FAILED, Event.RETRY, State.QUEUED).by(USER).label("manual retry, head of the queue, fresh retry budget").add()
                .row(State.RUNNING, Event.INTERRUPT, State.INTERRUPTED).by(SYSTEM).label("crash or exit while running").add()
                .row(State.INTERRUPTED, Event.RECOVER, State.QUEUED).by(SYSTEM).label("auto-recover, head of the queue").add()
                .row(State.INTERRUPTED, Event.FAIL, State.FAILED).by(SYSTEM).label("auto-recover off").add()
                .row(State.QUEUED, Event.SKIP, State.CANCELED).by(USER)
                    .effect((task, command, changes) -> changes.put(CANCEL_REASON, "skipped"))
                    .label("skip (cancel_reason=skipped)").add()
                .row(State.QUEUED, Event.BLOCK, State.BLOCKED).by(SYSTEM)
                    .guard("reason-given", (task, command) -> Verdict.when(
                            Attrs.given(command.attributes().get(BLOCKED_REASON)), BLOCK_REASON_MISSING,
                            "blocking needs " + BLOCKED_REASON + ", for example disk_space"))
                    .label("precondition fails (blocked_reason)").add()
                .row(State.BLOCKED, Event.UNBLOCK, State.QUEUED).by(SYSTEM)
                    .effect((task, command, changes) -> changes.put(BLOCKED_REASON, null))
                    .label("precondition holds again").add()
                .row(State.QUEUED, Event.PAUSE, State.PAUSED).by(USER).label("hold a queued task").add()
                .row(State.PAUSED, Event.RESUME, State.QUEUED).by(USER).label("release").add()
                .refuse(State.RUNNING, Event.PAUSE, RUNNING_NOT_PAUSABLE,
                        "a running compression cannot be paused and resumed safely; pause the queue or cancel the task");
        // refusals a user meets, named: skip only waits in the queue, retry only follows a failure
        for (State s : State.values()) {
            if (s == State.RUNNING) {
                b.refuse(s, Event.SKIP, TASK_ALREADY_STARTED, "the task already started; cancel it to stop it");
            } else if (s != State.QUEUED) {
                b.refuse(s, Event.SKIP, NOT_QUEUED, "only a task waiting in the queue can be skipped");
            }
            if (s != State.FAILED) b.refuse(s, Event.RETRY, NOT_FAILED, "only a failed task can be retried");
        }
        b.refuse(State.COMPLETED, Event.CANCEL, TASK_FINISHED, "the task has ended");
        b.refuse(State.CANCELED, Event.CANCEL, TASK_FINISHED, "the task has ended");
        // the user may cancel in every state that is not terminal (and so may a cancelled batch, as SYSTEM)
        for (State s : EnumSet.complementOf(EnumSet.of(State.COMPLETED, State.CANCELED))) {
            // a cancelled batch cancels its waiting files as SYSTEM; a running one only stops through its lease
            b.row(s, Event.CANCEL, State.CANCELED).by(USER, s == State.RUNNING ? USER : SYSTEM).effect(CANCELED_BY_USER)
                    .label(s == State.RUNNING ? "cancel (safe stop)" : "cancel").add();
        }
        b.succeeded(State.COMPLETED).failed(State.FAILED).cancelled(State.CANCELED);
        return b.run(r -> r.claim(State.QUEUED, Event.START)
                        .success(Event.SUCCEED)
                        .retryable(Event.RETRYABLE_ERROR)
                        .fatal(Event.FAIL)
                        .afterWait(State.RETRYING, Event.BACKOFF_ELAPSED)
                        .cancel(Event.CANCEL)
                        .blocked(State.BLOCKED, Event.BLOCK, Event.UNBLOCK)
                        .recoverByInterrupt(Event.INTERRUPT, Event.RECOVER, Event.FAIL, autoRecover)
                        .retry(RETRY_POLICY))
                // one task per input and output target while it may still run: the seed's duplicate rule
                // (a FAILED task can be retried, so it is unique too: the validation refuses the gap)
                .unique(EnumSet.complementOf(EnumSet.of(State.COMPLETED, State.CANCELED)))
                .build();
    }

    private CompressionTask() {}
}
