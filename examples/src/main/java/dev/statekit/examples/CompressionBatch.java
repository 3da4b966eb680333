package dev.statekit.examples;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import java.time.Duration;

/**
 * A group of compressions with a summary that runs after them: the batch is the parent of its
 * compression tasks, and the summary depends on the batch.
 *
 * <p>The batch ({@link #BATCH}) is created {@code OPEN} with its files as children in one write;
 * the group resolver completes it when every file is compressed, fails it when every file has
 * ended and some failed (a failed file retried opens it again), and cancels it when files were
 * cancelled and none failed. The summary ({@link #SUMMARY}) is created with the batch, held until
 * the batch has completed, and then runs like any task on its own queue; when the batch fails or
 * is cancelled, the summary is failed or cancelled, never left waiting.
 */
public final class CompressionBatch {
    /** The state of a batch. */
    public enum BatchState {
        /** Its files are being compressed. */
        OPEN,
        /** Every file was compressed. */
        COMPLETED,
        /** Every file has ended, and some failed. */
        FAILED,
        /** Files were cancelled, none failed; or the user cancelled the batch. */
        CANCELED
    }

    /** What happens to a batch. */
    public enum BatchEvent {
        /** Every file was compressed. */
        FILES_DONE,
        /** Every file has ended, some failed. */
        FILES_FAILED,
        /** Files were cancelled and none failed. */
        FILES_CANCELED,
        /** A failed file was retried: the batch is open again. */
        REOPEN,
        /** The user cancels the batch: its waiting files are cancelled, the running one is asked to stop. */
        CANCEL
    }

    /** The state of a summary. */
    public enum SummaryState {
        /** Waiting for its batch (held), then for a worker. */
        QUEUED,
        /** The summary is being written. */
        RUNNING,
        /** Written. */
        DONE,
        /** Its batch failed, or the summary failed. */
        FAILED,
        /** Its batch was cancelled, or the user cancelled it. */
        CANCELED
    }

    /** What happens to a summary. */
    public enum SummaryEvent {
        /** A worker starts the summary. */
        START,
        /** The summary was written. */
        SUCCEED,
        /** Writing the summary failed. */
        FAIL,
        /** The batch failed. */
        BATCH_FAILED,
        /** The batch was cancelled, or the user cancels. */
        CANCEL,
        /** The summary goes back to its queue (its worker stopped, or its lease expired). */
        RELEASE
    }

    /** The batch machine: the parent of its compression tasks. */
    public static final Machine<BatchState, BatchEvent> BATCH = Machine.builder("compression-batch", BatchState.class, BatchEvent.class)
            .version(1)
            .initial(BatchState.OPEN)
            .terminal(BatchState.COMPLETED, BatchState.CANCELED)
            .succeeded(BatchState.COMPLETED).failed(BatchState.FAILED).cancelled(BatchState.CANCELED)
            .transition(BatchState.OPEN, BatchEvent.FILES_DONE, BatchState.COMPLETED, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.FILES_FAILED, BatchState.FAILED, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.FILES_CANCELED, BatchState.CANCELED, SYSTEM)
            .transition(BatchState.FAILED, BatchEvent.REOPEN, BatchState.OPEN, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.CANCEL, BatchState.CANCELED, USER)
            .transition(BatchState.FAILED, BatchEvent.CANCEL, BatchState.CANCELED, USER)
            .children(CompressionTask.MACHINE, c -> c
                    .whenSucceeded(BatchEvent.FILES_DONE)
                    .whenFailed(BatchEvent.FILES_FAILED)
                    .whenCancelled(BatchEvent.FILES_CANCELED)
                    .reopen(BatchEvent.REOPEN)
                    .cancelIn(BatchState.CANCELED))
            .build();

    /** The summary machine: runs once its batch has completed. */
    public static final Machine<SummaryState, SummaryEvent> SUMMARY = Machine.builder("compression-summary", SummaryState.class,
                    SummaryEvent.class)
            .version(1)
            .initial(SummaryState.QUEUED)
            .terminal(SummaryState.DONE, SummaryState.FAILED, SummaryState.CANCELED)
            .succeeded(SummaryState.DONE).failed(SummaryState.FAILED).cancelled(SummaryState.CANCELED)
            .transition(SummaryState.QUEUED, SummaryEvent.START, SummaryState.RUNNING, SYSTEM)
            .transition(SummaryState.RUNNING, SummaryEvent.SUCCEED, SummaryState.DONE, SYSTEM)
            .transition(SummaryState.RUNNING, SummaryEvent.FAIL, SummaryState.FAILED, SYSTEM)
            .transition(SummaryState.RUNNING, SummaryEvent.RELEASE, SummaryState.QUEUED, SYSTEM)
            .transition(SummaryState.QUEUED, SummaryEvent.BATCH_FAILED, SummaryState.FAILED, SYSTEM)
            .transition(SummaryState.QUEUED, SummaryEvent.CANCEL, SummaryState.CANCELED, USER, SYSTEM)
            .run(r -> r.claim(SummaryState.QUEUED, SummaryEvent.START)
                    .success(SummaryEvent.SUCCEED)
                    .fatal(SummaryEvent.FAIL)
                    .release(SummaryEvent.RELEASE)
                    .cancel(SummaryEvent.CANCEL)
                    .recoverByRequeue()
                    .retry(RetryPolicy.exponential(3, Duration.ofSeconds(1), Duration.ofSeconds(10))))
            .dependencies(d -> d.on(BATCH).whenFailed(SummaryEvent.BATCH_FAILED).whenCancelled(SummaryEvent.CANCEL))
            .build();

    private CompressionBatch() {}
}
