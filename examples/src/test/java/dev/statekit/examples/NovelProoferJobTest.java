package dev.statekit.examples;

import static dev.statekit.examples.NovelProoferJob.PHASE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.BatchOutcome;
import dev.statekit.core.Command;
import dev.statekit.core.Fire;
import dev.statekit.core.Machine;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.TaskSpec;
import dev.statekit.examples.NovelProoferJob.Event;
import dev.statekit.examples.NovelProoferJob.State;
import dev.statekit.store.HistoryEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

class NovelProoferJobTest extends MachineContract<State, Event> {
    static final Command ALICE = Command.user("alice");
    static final Command SYSTEM = Command.system();
    static final Machine<NovelProoferChunk.State, NovelProoferChunk.Event> CHUNK = NovelProoferChunk.MACHINE;

    @Override
    List<String> expectedRows() {
        return List.of(
                "QUEUED START RUNNING S",
                "RUNNING VALIDATE_DONE PAUSED S [phase-validate]",
                "PAUSED START_PROCESS RUNNING U [phase-process]",
                "RUNNING PAUSE PAUSED U [phase-process]",
                "RUNNING PROCESS_FAILED ERROR S [phase-process]",
                "ERROR RETRY_FAILED QUEUED U",
                "RUNNING PROCESS_DONE PAUSED S [phase-process]",
                "PAUSED MERGE RUNNING U [phase-merge]",
                "RUNNING MERGE_DONE DONE S [phase-merge]",
                "QUEUED RESET CANCELLED U",
                "RUNNING RESET CANCELLED U",
                "PAUSED RESET CANCELLED U",
                "ERROR RESET CANCELLED U");
    }

    @Override
    Machine<State, Event> machine() {
        return NovelProoferJob.MACHINE;
    }

    /** Creates a job and brings it to PAUSED in phase process (validated). */
    long validated() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        apply(id, Event.VALIDATE_DONE, SYSTEM);
        return id;
    }

    /** Creates a job and brings it to PAUSED in phase merge (every chunk processed). */
    long awaitingMerge() {
        long id = validated();
        apply(id, Event.START_PROCESS, ALICE);
        apply(id, Event.PROCESS_DONE, SYSTEM);
        return id;
    }

    long chunk(long job, NovelProoferChunk.Event... path) {
        long id = engine.create(CHUNK, TaskSpec.defaults().parent(job)).task().id();
        for (NovelProoferChunk.Event e : path) engine.fire(CHUNK, id, e, NovelProoferChunkTest.report(e)).orElseThrow();
        return id;
    }

    NovelProoferChunk.State chunkState(long id) {
        return engine.find(CHUNK, id).orElseThrow().state();
    }

    @Test
    void aNewJobValidatesThenWaitsForTheUserToStartProcessing() {
        long id = create();
        assertThat(apply(id, Event.START, SYSTEM).attribute(PHASE)).isEqualTo("validate");
        var paused = apply(id, Event.VALIDATE_DONE, SYSTEM);
        assertThat(paused.state()).isEqualTo(State.PAUSED);
        assertThat(paused.attribute(PHASE)).isEqualTo("process");
    }

    @Test
    void theHappyPathFollowsTheThreePhases() {
        long id = awaitingMerge();
        assertThat(task(id).attribute(PHASE)).isEqualTo("merge");
        assertThat(apply(id, Event.MERGE, ALICE).attribute(PHASE)).isEqualTo("merge");
        var done = apply(id, Event.MERGE_DONE, SYSTEM);
        assertThat(done.state()).isEqualTo(State.DONE);
        assertThat(done.attribute(PHASE)).isEqualTo("done");
        assertThat(engine.history(id)).extracting(HistoryEntry::event)
                .containsExactly("START", "VALIDATE_DONE", "START_PROCESS", "PROCESS_DONE", "MERGE", "MERGE_DONE");
    }

    @Test
    void startProcessIsAllowedInPhaseProcessAndRefusedInPhaseMerge() {
        long merge = awaitingMerge();
        var r = refuse(merge, Event.START_PROCESS, ALICE, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);
        assertThat(r.message()).contains("phase-process").contains("merge");

        long process = validated();
        assertThat(apply(process, Event.START_PROCESS, ALICE).state()).isEqualTo(State.RUNNING);
        assertThat(task(process).attribute(PHASE)).isEqualTo("process");
    }

    @Test
    void mergeIsAllowedInPhaseMergeAndRefusedInPhaseProcess() {
        long process = validated();
        refuse(process, Event.MERGE, ALICE, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);

        long merge = awaitingMerge();
        assertThat(apply(merge, Event.MERGE, ALICE).state()).isEqualTo(State.RUNNING);
    }

    @Test
    void pauseWorksOnlyInPhaseProcessAndKeepsThePhase() {
        long validating = create();
        apply(validating, Event.START, SYSTEM);
        refuse(validating, Event.PAUSE, ALICE, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);

        long merging = awaitingMerge();
        apply(merging, Event.MERGE, ALICE);
        refuse(merging, Event.PAUSE, ALICE, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);

        long processing = validated();
        apply(processing, Event.START_PROCESS, ALICE);
        var paused = apply(processing, Event.PAUSE, ALICE);
        assertThat(paused.state()).isEqualTo(State.PAUSED);
        assertThat(paused.attribute(PHASE)).isEqualTo("process");
        assertThat(apply(processing, Event.START_PROCESS, ALICE).state()).isEqualTo(State.RUNNING);
    }

    @Test
    void workersMayOnlyReportTheEndOfTheRunningStep() {
        long id = create();
        apply(id, Event.START, SYSTEM);
        refuse(id, Event.PROCESS_DONE, SYSTEM, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);
        refuse(id, Event.PROCESS_FAILED, SYSTEM, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);
        refuse(id, Event.MERGE_DONE, SYSTEM, RefusalCode.GUARD_REFUSED, NovelProoferJob.PHASE_MISMATCH);
        assertThat(apply(id, Event.VALIDATE_DONE, SYSTEM).state()).isEqualTo(State.PAUSED);
    }

    @Test
    void retryFailedResetsOnlyFailedChunksAndKeepsPhaseProcess() {
        long job = validated();
        apply(job, Event.START_PROCESS, ALICE);
        long done = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.SUCCEED);
        long failed = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.FAIL);
        long failedAfterRetries = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.RETRYABLE_ERROR,
                NovelProoferChunk.Event.FAIL);
        apply(job, Event.PROCESS_FAILED, SYSTEM);
        long doneVersion = engine.find(CHUNK, done).orElseThrow().version();

        BatchOutcome batch = engine.fireAll(List.of(
                new Fire<>(machine(), job, Event.RETRY_FAILED, ALICE),
                new Fire<>(CHUNK, failed, NovelProoferChunk.Event.RETRY_FAILED, ALICE),
                new Fire<>(CHUNK, failedAfterRetries, NovelProoferChunk.Event.RETRY_FAILED, ALICE)));

        assertThat(batch.isApplied()).isTrue();
        assertThat(task(job).state()).isEqualTo(State.QUEUED);
        assertThat(chunkState(failed)).isEqualTo(NovelProoferChunk.State.PENDING);
        assertThat(chunkState(failedAfterRetries)).isEqualTo(NovelProoferChunk.State.PENDING);
        assertThat(chunkState(done)).isEqualTo(NovelProoferChunk.State.DONE);
        assertThat(engine.find(CHUNK, done).orElseThrow().version()).isEqualTo(doneVersion);
        // queued again by retry-failed, the job goes on processing rather than validating anew
        var running = apply(job, Event.START, SYSTEM);
        assertThat(running.attribute(PHASE)).isEqualTo("process");
        assertThat(apply(job, Event.PROCESS_DONE, SYSTEM).attribute(PHASE)).isEqualTo("merge");
    }

    @Test
    void retryFailedThatNamesADoneChunkWritesNothing() {
        long job = validated();
        apply(job, Event.START_PROCESS, ALICE);
        long done = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.SUCCEED);
        long failed = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.FAIL);
        apply(job, Event.PROCESS_FAILED, SYSTEM);
        long jobVersion = task(job).version();

        BatchOutcome batch = engine.fireAll(List.of(
                new Fire<>(machine(), job, Event.RETRY_FAILED, ALICE),
                new Fire<>(CHUNK, failed, NovelProoferChunk.Event.RETRY_FAILED, ALICE),
                new Fire<>(CHUNK, done, NovelProoferChunk.Event.RETRY_FAILED, ALICE)));

        assertThat(batch.isApplied()).isFalse();
        assertThat(batch.refusedIndex()).isEqualTo(2);
        assertThat(batch.refusal()).isNotNull();
        assertThat(batch.refusal().code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(task(job).state()).isEqualTo(State.ERROR);
        assertThat(task(job).version()).isEqualTo(jobVersion);
        assertThat(chunkState(failed)).isEqualTo(NovelProoferChunk.State.ERROR);
    }

    @Test
    void pauseReturnsInFlightChunksToPendingWithTheJob() {
        long job = validated();
        apply(job, Event.START_PROCESS, ALICE);
        long processing = chunk(job, NovelProoferChunk.Event.START);
        long retrying = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.RETRYABLE_ERROR);
        long done = chunk(job, NovelProoferChunk.Event.START, NovelProoferChunk.Event.SUCCEED);

        BatchOutcome batch = engine.fireAll(List.of(
                new Fire<>(machine(), job, Event.PAUSE, ALICE.reason("page closed")),
                Fire.of(CHUNK, processing, NovelProoferChunk.Event.RELEASE),
                Fire.of(CHUNK, retrying, NovelProoferChunk.Event.RELEASE)));

        assertThat(batch.isApplied()).isTrue();
        assertThat(task(job).state()).isEqualTo(State.PAUSED);
        assertThat(chunkState(processing)).isEqualTo(NovelProoferChunk.State.PENDING);
        assertThat(chunkState(retrying)).isEqualTo(NovelProoferChunk.State.PENDING);
        assertThat(chunkState(done)).isEqualTo(NovelProoferChunk.State.DONE);
        // the retry's error survives the heal: it is the chunk's history
        assertThat(engine.find(CHUNK, retrying).orElseThrow().record().lastError().code()).isEqualTo("LLM_429");
    }

    @Test
    void resetIsAHardStopFromEveryNonTerminalState() {
        assertThat(machine().terminals()).containsExactlyInAnyOrder(State.DONE, State.CANCELLED);
        for (State s : machine().states()) {
            assertThat(machine().permits(s, Event.RESET)).as("%s", s).isEqualTo(!machine().isTerminal(s));
        }
        long id = validated();
        assertThat(apply(id, Event.RESET, ALICE.reason("delete task")).state()).isEqualTo(State.CANCELLED);
        assertThat(machine().allowedEvents(State.CANCELLED)).isEmpty();
    }

    @Test
    void everyEdgeOfTheDiagramHasItsOwnEvent() {
        var edges = new java.util.HashMap<String, Event>();
        for (var row : machine().transitions()) {
            Event previous = edges.putIfAbsent(row.from() + "->" + row.to() + ":" + row.event(), row.event());
            assertThat(previous).as("duplicate row %s", row).isNull();
        }
        // the three running -> paused edges and the two paused -> running edges are told apart by their events
        assertThat(machine().transitions()).filteredOn(t -> t.from() == State.RUNNING && t.to() == State.PAUSED)
                .extracting(t -> t.event()).containsExactlyInAnyOrder(Event.VALIDATE_DONE, Event.PAUSE, Event.PROCESS_DONE);
        assertThat(machine().transitions()).filteredOn(t -> t.from() == State.PAUSED && t.to() == State.RUNNING)
                .extracting(t -> t.event()).containsExactlyInAnyOrder(Event.START_PROCESS, Event.MERGE);
    }
}
