package dev.statekit.jdbc.multiprocess;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import java.time.Duration;

/**
 * The machines of {@link GroupsAcrossProcessesTest}: a batch is the parent of its pieces, and a
 * summary depends on its batch.
 *
 * <p>A batch is created {@code NEW}; {@code SPLIT} opens it and creates its pieces in the same write
 * (or its pieces are added over time and the last ones come with {@code SPLIT}, which seals the
 * group). Once every piece has succeeded the group resolver fires {@code PIECES_DONE}, which moves the
 * batch to {@code SETTLED}, its succeeded state. A piece is claimed, run and completed; a retryable
 * failure waits in {@code RETRYING} for its back-off. A summary is created with its batch, held until
 * the batch has settled, then claimed and run like any task.
 */
final class Batches {
    static final String PIECES = "pieces";
    static final String SUMMARIES = "summaries";
    /** The piece attribute that makes its first attempt fail with a retryable error. */
    static final String FLAKY = "flaky";
    /** The summary attribute naming its batch. */
    static final String BATCH_ID = "batch";

    enum PieceState { QUEUED, RUNNING, RETRYING, DONE, FAILED }

    enum PieceEvent { START, COMPLETE, RETRYABLE, FAIL, BACKOFF_OVER, RELEASE, RETRY }

    enum BatchState { NEW, OPEN, SETTLED, FAILED }

    enum BatchEvent { SPLIT, PIECES_DONE, PIECES_FAILED }

    enum SummaryState { QUEUED, RUNNING, DONE, FAILED }

    enum SummaryEvent { START, COMPLETE, FAIL, RELEASE, BATCH_FAILED }

    static final Machine<PieceState, PieceEvent> PIECE = Machine.builder("piece", PieceState.class, PieceEvent.class)
            .initial(PieceState.QUEUED)
            .terminal(PieceState.DONE)
            .succeeded(PieceState.DONE)
            .failed(PieceState.FAILED)
            .transition(PieceState.QUEUED, PieceEvent.START, PieceState.RUNNING, SYSTEM)
            .transition(PieceState.RUNNING, PieceEvent.COMPLETE, PieceState.DONE, SYSTEM)
            .transition(PieceState.RUNNING, PieceEvent.RETRYABLE, PieceState.RETRYING, SYSTEM)
            .transition(PieceState.RUNNING, PieceEvent.FAIL, PieceState.FAILED, SYSTEM)
            .transition(PieceState.RETRYING, PieceEvent.BACKOFF_OVER, PieceState.QUEUED, SYSTEM)
            .transition(PieceState.RUNNING, PieceEvent.RELEASE, PieceState.QUEUED, SYSTEM)
            .transition(PieceState.FAILED, PieceEvent.RETRY, PieceState.QUEUED, USER)
            .run(r -> r.claim(PieceState.QUEUED, PieceEvent.START).success(PieceEvent.COMPLETE)
                    .retryable(PieceEvent.RETRYABLE).fatal(PieceEvent.FAIL).release(PieceEvent.RELEASE)
                    .afterWait(PieceState.RETRYING, PieceEvent.BACKOFF_OVER)
                    .retry(RetryPolicy.exponential(3, Duration.ofMillis(100), Duration.ofMillis(400))))
            .build();

    static final Machine<BatchState, BatchEvent> BATCH = Machine.builder("batch", BatchState.class, BatchEvent.class)
            .initial(BatchState.NEW)
            .terminal(BatchState.SETTLED, BatchState.FAILED)
            .succeeded(BatchState.SETTLED)
            .failed(BatchState.FAILED)
            .transition(BatchState.NEW, BatchEvent.SPLIT, BatchState.OPEN, USER)
            .transition(BatchState.OPEN, BatchEvent.PIECES_DONE, BatchState.SETTLED, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.PIECES_FAILED, BatchState.FAILED, SYSTEM)
            .children(PIECE, c -> c.whenSucceeded(BatchEvent.PIECES_DONE).whenFailed(BatchEvent.PIECES_FAILED))
            .build();

    static final Machine<SummaryState, SummaryEvent> SUMMARY = Machine.builder("summary", SummaryState.class, SummaryEvent.class)
            .initial(SummaryState.QUEUED)
            .terminal(SummaryState.DONE, SummaryState.FAILED)
            .succeeded(SummaryState.DONE)
            .failed(SummaryState.FAILED)
            .transition(SummaryState.QUEUED, SummaryEvent.START, SummaryState.RUNNING, SYSTEM)
            .transition(SummaryState.RUNNING, SummaryEvent.COMPLETE, SummaryState.DONE, SYSTEM)
            .transition(SummaryState.RUNNING, SummaryEvent.FAIL, SummaryState.FAILED, SYSTEM)
            .transition(SummaryState.RUNNING, SummaryEvent.RELEASE, SummaryState.QUEUED, SYSTEM)
            .transition(SummaryState.QUEUED, SummaryEvent.BATCH_FAILED, SummaryState.FAILED, SYSTEM)
            .run(r -> r.claim(SummaryState.QUEUED, SummaryEvent.START).success(SummaryEvent.COMPLETE)
                    .fatal(SummaryEvent.FAIL).release(SummaryEvent.RELEASE).recoverByRequeue())
            .dependencies(d -> d.on(BATCH).whenFailed(SummaryEvent.BATCH_FAILED))
            .build();

    private Batches() {
    }
}
