package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on errors: a task's last error keeps its detail (the stack trace of
 * a thrown exception), and the history entry of a change that recorded an error keeps that error,
 * through every write and read, the archive included. Every store runs it as {@link StoreContract.Errors}.
 */
abstract class ErrorDetailContract extends ContractPart {

    ErrorDetailContract(StoreContract contract) {
        super(contract);
    }

    private static final String TRACE = "java.lang.IllegalStateException: disk full\n\tat com.example.Worker.work(Worker.java:42)\n"
            + "\tat dev.statekit.core.runtime.SlotLoop.call(SlotLoop.java:1)\nCaused by: java.io.IOException: ünïcode ✓\n";

    /** The change failing {@code from} to {@code state} with {@code error}, recorded in the entry too. */
    private static Change failing(TaskRecord from, String state, TaskError error) {
        Instant at = from.updatedAt().plusSeconds(1);
        TaskRecord next = from.toBuilder().state(state).lease(null).lastError(error).updatedAt(at).version(from.version() + 1).build();
        HistoryEntry entry = new HistoryEntry(from.id(), next.version(), from.state(), state, "FAIL", TriggerSource.SYSTEM, OWNER,
                error.code() + ": " + error.message(), at, null, error);
        return new Change(from.version(), next, entry);
    }

    @Test
    public void aFailureKeepsItsDetailOnTheTaskAndInItsHistoryEntry() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        TaskError error = new TaskError("WORKER_ERROR", "disk full", false, "upload", TRACE);
        TaskRecord failed = applied(failing(claimed, "FAILED", error));
        assertThat(failed.lastError()).isEqualTo(error);
        List<HistoryEntry> history = store.history(claimed.id());
        assertThat(history).hasSize(2);
        assertThat(history.get(0).error()).as("the claim records none").isNull();
        assertThat(history.get(1).error()).isEqualTo(error);
        assertThat(history.get(1).error().detail()).isEqualTo(TRACE);
    }

    @Test
    public void anErrorWithoutDetailStaysWithoutOne() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        TaskError error = new TaskError("TIMEOUT", "took too long", true, null);
        TaskRecord failed = applied(failing(claimed, READY, error));
        assertThat(failed.lastError()).isEqualTo(error);
        assertThat(failed.lastError().detail()).isNull();
        assertThat(store.history(claimed.id()).get(1).error()).isEqualTo(error);
    }

    @Test
    public void aDetailOfTheLargestSizeIsKeptWhole() {
        String big = "x".repeat(TaskError.MAX_DETAIL - 1) + "ü";
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        TaskError error = new TaskError("BIG", "a deep stack", false, null, big);
        assertThat(error.detail()).hasSize(TaskError.MAX_DETAIL);
        TaskRecord failed = applied(failing(claimed, "FAILED", error));
        assertThat(failed.lastError().detail()).isEqualTo(big);
        assertThat(new TaskError("BIG", "more", false, null, big + "y").detail()).hasSize(TaskError.MAX_DETAIL).endsWith(TaskError.CUT);
    }

    @Test
    public void aLaterChangeKeepsTheLastErrorAndRecordsNoneOfItsOwn() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        TaskError error = new TaskError("WORKER_ERROR", "disk full", true, null, TRACE);
        TaskRecord retried = applied(failing(claimed, READY, error));
        TaskRecord again = claimOne(retried.id(), "worker-2", LEASE);
        assertThat(again.lastError()).isEqualTo(error);
        TaskRecord done = applied(move(again, DONE, null));
        assertThat(done.lastError()).isEqualTo(error);
        List<HistoryEntry> history = store.history(done.id());
        assertThat(history).extracting(HistoryEntry::error).containsExactly(null, error, null, null);
    }

    @Test
    public void theArchiveKeepsTheErrorsOfTheHistory() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        TaskError error = new TaskError("WORKER_ERROR", "disk full", false, null, TRACE);
        TaskRecord failed = applied(failing(claimed, DONE, error));
        assertThat(store.archive(finishedJobs(100), T0.plus(HOUR))).isEqualTo(new RetentionResult(1, 1));
        ArchivedTask archived = store.findArchived(failed.id()).orElseThrow();
        assertThat(archived.task().lastError()).isEqualTo(error);
        assertThat(archived.history()).extracting(HistoryEntry::error).containsExactly(null, error);
    }
}
