package dev.statekit.examples;

import static dev.statekit.examples.ReadDoItem.ARCHIVE_REASON;
import static dev.statekit.examples.ReadDoItem.RUN_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.Transition;
import dev.statekit.examples.ReadDoItem.Event;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.store.TaskError;
import dev.statekit.store.TriggerSource;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ReadDoItemTest extends MachineContract<State, Event> {
    static final Command ALICE = Command.user("alice");
    static final Command SYSTEM = Command.system();

    @Override
    List<String> expectedRows() {
        return List.of(
                "CAPTURED ENQUEUE QUEUED S",
                "QUEUED LEASE PROCESSING S",
                "PROCESSING PIPELINE_SUCCEEDED READY S [artifacts-complete]",
                "PROCESSING EXTRACTION_FAILED FAILED_EXTRACTION S [failure-described]",
                "PROCESSING AI_FAILED FAILED_AI S [ai-failure-described]",
                "PROCESSING STEP_FAILED FAILED_EXTRACTION S [failed-step-extract]",
                "PROCESSING STEP_FAILED FAILED_AI S [failed-step-ai]",
                "READY EXPORT_SUCCEEDED SHIPPED SU",
                "READY MARK_SHIPPED SHIPPED U",
                "FAILED_EXPORT EXPORT_SUCCEEDED SHIPPED SU",
                "READY ARCHIVE ARCHIVED U",
                "FAILED_EXTRACTION PROCESS QUEUED U",
                "FAILED_AI PROCESS QUEUED U",
                "FAILED_EXPORT PROCESS QUEUED U",
                "FAILED_EXTRACTION AUTO_RETRY QUEUED S [retryable]",
                "FAILED_AI AUTO_RETRY QUEUED S [retryable]",
                "FAILED_EXPORT AUTO_RETRY QUEUED S [retryable]",
                "FAILED_EXTRACTION ARCHIVE ARCHIVED U",
                "FAILED_AI ARCHIVE ARCHIVED U",
                "FAILED_EXPORT ARCHIVE ARCHIVED U",
                "ARCHIVED UNARCHIVE READY U [artifacts-complete-no-regenerate]",
                "ARCHIVED UNARCHIVE QUEUED U",
                "SHIPPED ARCHIVE ARCHIVED U",
                "SHIPPED EXPORT_SUCCEEDED SHIPPED SU",
                "READY EXPORT_FAILED FAILED_EXPORT SU [failure-described]",
                "FAILED_EXPORT EXPORT_FAILED FAILED_EXPORT SU [failure-described]",
                "SHIPPED EXPORT_FAILED SHIPPED SU [failure-described]",
                "READY PROCESS QUEUED U",
                "CAPTURED ARCHIVE ARCHIVED U",
                "QUEUED ARCHIVE ARCHIVED U",
                "PROCESSING LEASE_EXPIRED QUEUED S",
                "CAPTURED PROCESS QUEUED U",
                "ARCHIVED PROCESS QUEUED U");
    }

    @Override
    Machine<State, Event> machine() {
        return ReadDoItem.MACHINE;
    }

    @Override
    Map<String, String> namedRefusals() {
        return Map.of("PROCESSING/PROCESS", ReadDoItem.PROCESSING_IN_PROGRESS,
                "PROCESSING/ARCHIVE", ReadDoItem.PROCESSING_IN_PROGRESS);
    }

    @Override
    Command command(Transition<State, Event> row, TriggerSource source, Task<State> task) {
        Command c = base(source);
        return switch (row.event()) {
            case PIPELINE_SUCCEEDED -> artifacts(c, task.attribute(RUN_ID));
            case EXTRACTION_FAILED -> failure(c, "EXTRACTION_FETCH_FAILED", true, null);
            case AI_FAILED -> failure(c, "AI_TIMEOUT", true, "summarize");
            case STEP_FAILED -> row.to() == State.FAILED_EXTRACTION
                    ? failure(c, "EXTRACTION_PARSE_FAILED", false, "extract")
                    : failure(c, "AI_RATE_LIMITED", true, "score");
            case EXPORT_FAILED -> failure(c, "EXPORT_WRITE_FAILED", true, null);
            case UNARCHIVE -> row.to() == State.QUEUED ? c.set(ReadDoItem.REGENERATE, "true") : c;
            default -> c;
        };
    }

    static Command artifacts(Command c, @Nullable String run) {
        for (String a : ReadDoItem.REQUIRED_ARTIFACTS) c = c.set(ReadDoItem.artifactKey(a), String.valueOf(run));
        return c;
    }

    /** Returns {@code c} reporting the failure {@code code} of {@code step} (null: the step the event implies). */
    static Command failure(Command c, String code, boolean retryable, @Nullable String step) {
        return c.error(new TaskError(code, "step failed: " + code, retryable, step));
    }

    /** Creates an item and brings it to PROCESSING. */
    long processing() {
        long id = create();
        apply(id, Event.ENQUEUE, SYSTEM);
        apply(id, Event.LEASE, SYSTEM.actor("worker-1"));
        return id;
    }

    /** Creates an item and brings it to READY. */
    long ready() {
        long id = processing();
        apply(id, Event.PIPELINE_SUCCEEDED, artifacts(SYSTEM, task(id).attribute(RUN_ID)));
        return id;
    }

    long failedAi(boolean retryable) {
        long id = processing();
        apply(id, Event.AI_FAILED, failure(SYSTEM, "AI_SCHEMA_INVALID", retryable, "todos"));
        return id;
    }

    @Test
    void processWhileProcessingIsRefusedWithProcessingInProgress() {
        long id = processing();
        var r = refuse(id, Event.PROCESS, ALICE, RefusalCode.ILLEGAL_TRANSITION, ReadDoItem.PROCESSING_IN_PROGRESS);
        assertThat(r.code().httpStatus()).isEqualTo(409);
        assertThat(r.message()).contains("being processed");
        refuse(id, Event.ARCHIVE, ALICE, RefusalCode.ILLEGAL_TRANSITION, ReadDoItem.PROCESSING_IN_PROGRESS);
    }

    @Test
    void everyLeaseStartsANewRun() {
        long id = processing();
        assertThat(task(id).attribute(RUN_ID)).isEqualTo("run-1");
        assertThat(engine.history(id).get(1).actor()).as("the lease-acquire names its worker").isEqualTo("worker-1");
        var queued = apply(id, Event.LEASE_EXPIRED, SYSTEM.reason("lease timeout"));
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(apply(id, Event.LEASE, SYSTEM).attribute(RUN_ID)).isEqualTo("run-2");
    }

    @Test
    void theReadyGateNeedsEveryArtifactOfTheCurrentRun() {
        long id = processing();
        Command partial = SYSTEM;
        for (String a : new String[] {"summary", "score", "todos"}) partial = partial.set(ReadDoItem.artifactKey(a), "run-1");
        var r = refuse(id, Event.PIPELINE_SUCCEEDED, partial, RefusalCode.GUARD_REFUSED, ReadDoItem.ARTIFACTS_INCOMPLETE);
        assertThat(r.message()).contains(ReadDoItem.ARTIFACTS_COMPLETE).contains("card").doesNotContain("summary");

        var ready = apply(id, Event.PIPELINE_SUCCEEDED, partial.set(ReadDoItem.artifactKey("card"), "run-1"));
        assertThat(ready.state()).isEqualTo(State.READY);
    }

    @Test
    void aStaleRunCannotMakeTheItemReady() {
        long id = processing();
        apply(id, Event.LEASE_EXPIRED, SYSTEM);
        apply(id, Event.LEASE, SYSTEM);
        // the first worker finishes late, reporting the artifacts of run-1
        refuse(id, Event.PIPELINE_SUCCEEDED, artifacts(SYSTEM, "run-1"), RefusalCode.GUARD_REFUSED, ReadDoItem.ARTIFACTS_INCOMPLETE);
        assertThat(apply(id, Event.PIPELINE_SUCCEEDED, artifacts(SYSTEM, "run-2")).state()).isEqualTo(State.READY);
    }

    @Test
    void aFailureRecordsStepCodeMessageAndRetryable() {
        long extraction = processing();
        var failed = apply(extraction, Event.EXTRACTION_FAILED, failure(SYSTEM, "EXTRACTION_PARSE_FAILED", false, null));
        assertThat(failed.state()).isEqualTo(State.FAILED_EXTRACTION);
        assertThat(failed.record().lastError().code()).isEqualTo("EXTRACTION_PARSE_FAILED");
        assertThat(ReadDoHost.failure(failed)).containsExactly(entry("failed_step", "extract"),
                entry("error_code", "EXTRACTION_PARSE_FAILED"), entry("message", "step failed: EXTRACTION_PARSE_FAILED"),
                entry("retryable", "false"));

        long ai = failedAi(true);
        assertThat(task(ai).state()).isEqualTo(State.FAILED_AI);
        assertThat(ReadDoHost.failure(task(ai))).containsEntry("failed_step", "todos").containsEntry("retryable", "true");

        long export = ready();
        var exportFailed = apply(export, Event.EXPORT_FAILED, ALICE.error(new TaskError("EXPORT_RENDER_FAILED", "render failed", false, null)));
        assertThat(exportFailed.state()).isEqualTo(State.FAILED_EXPORT);
        assertThat(ReadDoHost.failure(exportFailed)).containsEntry("failed_step", "export").containsEntry("retryable", "false")
                .containsEntry("message", "render failed");
    }

    @Test
    void aFailureReportMustDescribeTheFailure() {
        long id = processing();
        refuse(id, Event.EXTRACTION_FAILED, SYSTEM, RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        refuse(id, Event.EXTRACTION_FAILED, SYSTEM.error(new TaskError("EXTRACTION_FETCH_FAILED", "", true, null)),
                RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        refuse(id, Event.AI_FAILED, failure(SYSTEM, "AI_TIMEOUT", true, null),
                RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        refuse(id, Event.AI_FAILED, failure(SYSTEM, "AI_TIMEOUT", true, "extract"),
                RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        assertThat(apply(id, Event.AI_FAILED, failure(SYSTEM, "AI_TIMEOUT", true, "card")).state())
                .isEqualTo(State.FAILED_AI);
    }

    @Test
    void aStepFailureGoesToTheFailedStateOfTheReportedStep() {
        long id = processing();
        refuse(id, Event.STEP_FAILED, failure(SYSTEM, "AI_TIMEOUT", true, null),
                RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        refuse(id, Event.STEP_FAILED, failure(SYSTEM, "EXPORT_WRITE_FAILED", false, "export"),
                RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        refuse(id, Event.STEP_FAILED, SYSTEM.error(new TaskError("EXTRACTION_FETCH_FAILED", "", true, "extract")),
                RefusalCode.GUARD_REFUSED, ReadDoItem.FAILURE_UNDESCRIBED);
        var extraction = apply(id, Event.STEP_FAILED, failure(SYSTEM, "EXTRACTION_FETCH_FAILED", true, "extract"));
        assertThat(extraction.state()).isEqualTo(State.FAILED_EXTRACTION);
        assertThat(ReadDoHost.failure(extraction)).containsEntry("failed_step", "extract").containsEntry("retryable", "true");

        long ai = processing();
        var failedAi = apply(ai, Event.STEP_FAILED, failure(SYSTEM, "AI_SCHEMA_INVALID", false, "todos"));
        assertThat(failedAi.state()).isEqualTo(State.FAILED_AI);
        assertThat(ReadDoHost.failure(failedAi)).containsEntry("failed_step", "todos").containsEntry("error_code", "AI_SCHEMA_INVALID")
                .containsEntry("retryable", "false");
    }

    @Test
    void autoRetryOnlyRetriesRetryableFailures() {
        long permanent = failedAi(false);
        refuse(permanent, Event.AUTO_RETRY, SYSTEM, RefusalCode.GUARD_REFUSED, ReadDoItem.NOT_RETRYABLE);
        // the user may still retry it
        assertThat(apply(permanent, Event.PROCESS, ALICE).state()).isEqualTo(State.QUEUED);

        long retryableFailure = failedAi(true);
        var queued = apply(retryableFailure, Event.AUTO_RETRY, SYSTEM);
        assertThat(queued.state()).isEqualTo(State.QUEUED);
    }

    @Test
    void retryClearsTheFailureAndTheNextLeaseStartsANewRun() {
        long id = failedAi(true);
        var queued = apply(id, Event.PROCESS, ALICE.reason("retry"));
        assertThat(ReadDoHost.failure(queued)).as("no failure shown once queued again").isEmpty();
        assertThat(queued.record().lastError().code()).as("the record keeps it as history").isEqualTo("AI_SCHEMA_INVALID");
        assertThat(apply(id, Event.LEASE, SYSTEM).attribute(RUN_ID)).isEqualTo("run-2");
    }

    @Test
    void regenerateFromReadyQueuesANewRunWhileTheOldArtifactsStay() {
        long id = ready();
        var queued = apply(id, Event.PROCESS, ALICE.reason("regenerate"));
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(queued.attribute(ReadDoItem.artifactKey("card"))).isEqualTo("run-1");
        apply(id, Event.LEASE, SYSTEM);
        // the artifacts of run-1 do not make run-2 ready
        refuse(id, Event.PIPELINE_SUCCEEDED, SYSTEM, RefusalCode.GUARD_REFUSED, ReadDoItem.ARTIFACTS_INCOMPLETE);
    }

    @Test
    void unarchiveReturnsToReadyWhenTheArtifactsAreCompleteAndNoRegenerateIsAsked() {
        long id = ready();
        assertThat(apply(id, Event.ARCHIVE, ALICE).attribute(ARCHIVE_REASON)).isEqualTo("USER_ARCHIVE");
        var ready = apply(id, Event.UNARCHIVE, ALICE);
        assertThat(ready.state()).isEqualTo(State.READY);
        assertThat(ready.attributes().contains(ARCHIVE_REASON)).isFalse();
    }

    @Test
    void unarchiveWithRegenerateQueuesTheItem() {
        long id = ready();
        apply(id, Event.ARCHIVE, ALICE);
        var queued = apply(id, Event.UNARCHIVE, ALICE.set(ReadDoItem.REGENERATE, "true"));
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(queued.attributes().contains(ReadDoItem.REGENERATE)).isFalse();
    }

    @Test
    void unarchiveOfAnItemWithIncompleteArtifactsQueuesIt() {
        long id = failedAi(false);
        var archived = apply(id, Event.ARCHIVE, ALICE);
        assertThat(archived.attribute(ARCHIVE_REASON)).isEqualTo("FAILURE_ARCHIVE");
        var queued = apply(id, Event.UNARCHIVE, ALICE);
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(ReadDoHost.failure(queued)).isEmpty();
    }

    @Test
    void archiveKeepsAReasonTheUserGives() {
        long id = ready();
        assertThat(apply(id, Event.ARCHIVE, ALICE.set(ARCHIVE_REASON, "SYSTEM_SKIP")).attribute(ARCHIVE_REASON))
                .isEqualTo("SYSTEM_SKIP");
    }

    @Test
    void reExportWithTheSameExportKeyIsIdempotent() {
        long id = ready();
        Command export = ALICE.idempotencyKey("export-card-v1-tpl-v1");
        var first = fire(id, Event.EXPORT_SUCCEEDED, export).orElseThrow();
        assertThat(first.task().state()).isEqualTo(State.SHIPPED);
        long version = first.task().version();

        var repeated = fire(id, Event.EXPORT_SUCCEEDED, export).orElseThrow();
        assertThat(repeated.replayed()).isTrue();
        assertThat(repeated.task().version()).isEqualTo(version);
        assertThat(repeated.entry()).isEqualTo(first.entry());

        var reExport = fire(id, Event.EXPORT_SUCCEEDED, ALICE.idempotencyKey("export-card-v2-tpl-v1")).orElseThrow();
        assertThat(reExport.replayed()).isFalse();
        assertThat(reExport.task().state()).isEqualTo(State.SHIPPED);
        assertThat(reExport.task().version()).isEqualTo(version + 1);
    }

    @Test
    void retryExportFromFailedExportShipsAndClearsTheFailure() {
        long id = ready();
        apply(id, Event.EXPORT_FAILED, failure(ALICE, "EXPORT_WRITE_FAILED", true, null));
        var stillFailed = apply(id, Event.EXPORT_FAILED, failure(ALICE, "EXPORT_RENDER_FAILED", false, null));
        assertThat(stillFailed.state()).isEqualTo(State.FAILED_EXPORT);
        assertThat(ReadDoHost.failure(stillFailed)).containsEntry("error_code", "EXPORT_RENDER_FAILED");
        var shipped = apply(id, Event.EXPORT_SUCCEEDED, ALICE);
        assertThat(shipped.state()).isEqualTo(State.SHIPPED);
        assertThat(ReadDoHost.failure(shipped)).isEmpty();
    }

    @Test
    void aFailedReExportKeepsTheItemShipped() {
        long id = ready();
        apply(id, Event.MARK_SHIPPED, ALICE);
        var shipped = apply(id, Event.EXPORT_FAILED, failure(SYSTEM, "EXPORT_WRITE_FAILED", true, null));
        assertThat(shipped.state()).isEqualTo(State.SHIPPED);
        assertThat(shipped.record().lastError().code()).isEqualTo("EXPORT_WRITE_FAILED");
        assertThat(shipped.record().lastError().message()).isEqualTo("step failed: EXPORT_WRITE_FAILED");
        assertThat(ReadDoHost.failure(shipped)).as("a shipped item is not a failed one").isEmpty();
    }

    @Test
    void exportIsRefusedBeforeTheItemIsReady() {
        long id = create();
        for (Event e : new Event[] {Event.EXPORT_SUCCEEDED, Event.EXPORT_FAILED, Event.MARK_SHIPPED}) {
            refuse(id, e, ALICE, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        }
    }

    @Test
    void captureIsEnqueuedBySystemOrProcessedByTheUser() {
        long auto = create();
        assertThat(apply(auto, Event.ENQUEUE, SYSTEM).state()).isEqualTo(State.QUEUED);
        refuse(create(), Event.ENQUEUE, ALICE, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        assertThat(apply(create(), Event.PROCESS, ALICE).state()).isEqualTo(State.QUEUED);
    }

    @Test
    void noStateIsTerminal() {
        assertThat(machine().terminals()).isEmpty();
        for (State s : machine().states()) assertThat(machine().allowedEvents(s)).as("%s", s).isNotEmpty();
    }

    @Test
    void unarchiveHasAGuardedRowAndAFallback() {
        assertThat(machine().target(State.ARCHIVED, Event.UNARCHIVE)).isNull();
        assertThat(machine().transitions(State.ARCHIVED, Event.UNARCHIVE))
                .extracting(t -> t.to(), t -> t.guarded())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(State.READY, true),
                        org.assertj.core.groups.Tuple.tuple(State.QUEUED, false));
        Outcome<State> o = fire(create(), Event.UNARCHIVE, ALICE);
        assertThat(o.isApplied()).isFalse();
    }
}
