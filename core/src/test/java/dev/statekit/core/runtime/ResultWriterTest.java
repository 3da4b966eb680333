package dev.statekit.core.runtime;

import dev.statekit.core.StoreSpy;
import dev.statekit.core.Command;
import dev.statekit.core.Ending;
import dev.statekit.core.Machine;
import dev.statekit.core.MachineBuilder;
import dev.statekit.core.Task;
import dev.statekit.core.Verdict;
import dev.statekit.core.internal.Kernel;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskError;
import dev.statekit.store.StatekitException;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A run's result settled by the run policy, the write of a batch's results, and what follows a result the store or the table turns down. */
class ResultWriterTest {
    static final Instant T0 = Instant.parse("2026-10-25T00:59:59Z");
    final RuntimeParts parts = new RuntimeParts();
    final List<Instant> wakeUps = new ArrayList<>();
    final Registration<Jobs.State, Jobs.Event> reg = new Registration<>(Jobs.MACHINE, "q", ctx -> WorkResult.success(),
            QueueOptions.defaults());
    boolean cancelRequested;
    final List<String> holds = new ArrayList<>();
    final ResultWriter settler = new ResultWriter(Kernel.of(parts.engine), "owner", wakeUps::add,
            new RuntimeEvents("owner", new Registrations(List.of(reg)), List.of()), id -> cancelRequested, () -> 0.5,
            (task, until) -> holds.add(task.id() + " until " + until));

    Run<Jobs.State, Jobs.Event> run(int retries) {
        TaskRecord t = new TaskRecord(3, Jobs.MACHINE.name(), 1, "RUNNING", "q", 0, 1, null, 1, retries,
                new Lease("owner", 9, T0.plusSeconds(30)), null, null, Attributes.EMPTY, null, null, T0, T0, 1);
        return new Run<>(reg, new Task<>(Jobs.State.RUNNING, t), t.lease(), new dev.statekit.core.spi.ManualClock(T0));
    }

    Settlement.Completion<Jobs.State, Jobs.Event> settle(Run<Jobs.State, Jobs.Event> run, WorkResult result) {
        return settler.settle(run, result, T0).completion();
    }

    @Test
    void successWritesTheWorkersAttributesAndProgressUnderTheLease() {
        Run<Jobs.State, Jobs.Event> run = run(0);
        run.progress("percent", "100");
        Settlement.Completion<Jobs.State, Jobs.Event> c = settle(run, WorkResult.success(Map.of("out", "ok")));
        assertThat(c.event()).isEqualTo(Jobs.Event.COMPLETE);
        assertThat(c.command().attributes()).containsEntry("out", "ok").containsEntry("percent", "100");
        assertThat(c.command().leaseToken()).hasValue(9);
        assertThat(c.wakeAt()).isNull();
    }

    @Test
    void aRetryableFailureRetriesWhileTheBudgetLastsThenFails() {
        Settlement.Completion<Jobs.State, Jobs.Event> again = settle(run(0), WorkResult.retryable("RATE", "429"));
        assertThat(again.event()).isEqualTo(Jobs.Event.RETRYABLE);
        assertThat(again.command().error().code()).isEqualTo("RATE");
        assertThat(again.wakeAt()).isAfter(T0);
        int max = Jobs.MACHINE.runPolicy().retry().maxRetries();
        Settlement.Completion<Jobs.State, Jobs.Event> spent = settle(run(max), WorkResult.retryable("RATE", "429"));
        assertThat(spent.event()).isEqualTo(Jobs.Event.FAIL);
        assertThat(spent.command().reason()).contains("after " + max + " retries");
        assertThat(spent.wakeAt()).isNull();
    }

    @Test
    void aFatalFailureFailsAndASnoozeReleasesUntilLater() {
        assertThat(settle(run(0), WorkResult.fatal("BAD", "bad input")).event()).isEqualTo(Jobs.Event.FAIL);
        Settlement.Completion<Jobs.State, Jobs.Event> z = settle(run(0), WorkResult.snooze(Duration.ofMinutes(5)));
        assertThat(z.event()).isEqualTo(Jobs.Event.RELEASE);
        assertThat(z.wakeAt()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
    }

    @Test
    void aRateLimitedAnswerSnoozesAndHoldsTheKeyBeforeTheWriteWhateverBecomesOfIt() {
        Settlement.Completion<Jobs.State, Jobs.Event> z = settle(run(0), WorkResult.rateLimited(Duration.ofSeconds(30)));
        assertThat(z.kind()).isEqualTo(Settlement.Kind.SNOOZE);
        assertThat(z.command().reason()).isEqualTo("rate limited; retry after PT30S");
        assertThat(z.wakeAt()).isEqualTo(T0.plusSeconds(30));
        settler.write(List.of(settler.settle(run(0), WorkResult.snooze(Duration.ofSeconds(30)), T0)));
        assertThat(holds).as("a plain snooze holds nothing else").isEmpty();
        settler.write(List.of(settler.settle(run(0), WorkResult.rateLimited(Duration.ofSeconds(30)), T0)));
        assertThat(holds).as("held although task 3 is not in the store").containsExactly("3 until " + T0.plusSeconds(30));
    }

    @Test
    void aCancellationRequestedElsewhereWinsOverARetry() {
        cancelRequested = true;
        Run<Jobs.State, Jobs.Event> run = run(0);
        Settlement.Completion<Jobs.State, Jobs.Event> c = settle(run, WorkResult.retryable("RATE", "429"));
        assertThat(c.event()).isEqualTo(Jobs.Event.CANCEL);
        assertThat(run.cancelReason()).isEqualTo("CANCELLED");
        assertThat(settle(run(0), WorkResult.success()).event()).as("a success is not retried, so it stands")
                .isEqualTo(Jobs.Event.COMPLETE);
    }

    /**
     * A machine whose success needs an "output" attribute; with {@code failRefusesSettling} its fatal
     * event refuses a settled refusal, and with {@code release} it has a release event.
     */
    static Machine<Jobs.State, Jobs.Event> gated(String name, boolean failRefusesSettling, boolean release) {
        MachineBuilder<Jobs.State, Jobs.Event> b = Machine.builder(name, Jobs.State.class, Jobs.Event.class)
                .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED)
                .initial(Jobs.State.QUEUED)
                .terminal(Jobs.State.DONE)
                .transition(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING, SYSTEM)
                .row(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE).by(SYSTEM)
                    .guard("has-output", (task, command) -> Verdict.when(command.attributes().containsKey("output"),
                            "OUTPUT_MISSING", "no output was reported"))
                    .add()
                .transition(Jobs.State.FAILED, Jobs.Event.RETRY, Jobs.State.QUEUED, USER);
        if (failRefusesSettling) {
            b.row(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED).by(SYSTEM)
                    .guard("worker-failures-only", (task, command) -> Verdict.when(command.error() == null
                            || !command.error().code().equals(Settlement.RESULT_REFUSED), "NOT_A_WORKER_FAILURE", "refused result"))
                    .add();
        } else {
            b.transition(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED, SYSTEM);
        }
        if (release) {
            b.transition(Jobs.State.RUNNING, Jobs.Event.RELEASE, Jobs.State.QUEUED, SYSTEM);
        } else {        // a release row that refuses: without a row, the runtime would release the task by itself
            b.row(Jobs.State.RUNNING, Jobs.Event.RELEASE, Jobs.State.QUEUED).by(SYSTEM)
                    .guard("never", (task, command) -> Verdict.refuse("NO_RELEASE", "this task is never released")).add();
        }
        return b.run(r -> {
            r.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL).release(Jobs.Event.RELEASE);
            if (!release) r.recoverByFailing();
        }).build();
    }

    <S extends Enum<S>, E extends Enum<E>> void writeResults(RuntimeContext ctx, Registration<S, E> r, WorkResult... results) {
        List<Run<S, E>> runs = RuntimeParts.claim(ctx, r);
        assertThat(runs).hasSize(results.length);
        ResultWriter writer = RuntimeParts.writer(ctx, wakeUps::add);
        List<ResultWriter.Ending<S, E>> done = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) done.add(writer.settle(runs.get(i), results[i], ctx.clock.now()));
        writer.write(done);
    }

    @Test
    void aBatchsResultsAreWrittenInOneCallAndRetriesAndSnoozesAskForAWakeUp() {
        parts.batchSize = 4;
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        long ok = parts.enqueue(Jobs.MACHINE, "q");
        long broken = parts.enqueue(Jobs.MACHINE, "q");
        long busy = parts.enqueue(Jobs.MACHINE, "q");
        long sleepy = parts.enqueue(Jobs.MACHINE, "q");
        parts.spy.clear();
        writeResults(ctx, r, WorkResult.success(), WorkResult.fatal("BROKEN", "no"), WorkResult.retryable("BUSY", "later"),
                WorkResult.snooze(Duration.ofMinutes(5)));
        assertThat(parts.task(ok).state()).isEqualTo("DONE");
        assertThat(parts.task(broken).state()).isEqualTo("FAILED");
        assertThat(parts.task(busy).state()).isEqualTo("RETRYING");
        assertThat(parts.task(sleepy).state()).isEqualTo("QUEUED");
        assertThat(parts.spy.calls("applyEach")).hasSize(1);
        assertThat(wakeUps).containsExactly(parts.task(busy).notBefore(), parts.clock.now().plus(Duration.ofMinutes(5)));
        for (long id : List.of(ok, broken, busy, sleepy)) {
            assertThat(parts.task(id).lease()).isNull();
            assertThat(parts.last(id).actor()).isEqualTo("r");
        }
    }

    /**
     * Two tasks claimed together by a runtime of batch size 2, so that their results go to the store
     * as one batch ({@code applyEach}), written as successes after {@code store} was told how to answer.
     */
    List<Long> twoSucceededWith(Consumer<StoreSpy> store) {
        parts.batchSize = 2;
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        List<Long> ids = List.of(parts.enqueue(Jobs.MACHINE, "q"), parts.enqueue(Jobs.MACHINE, "q"));
        parts.spy.clear();
        store.accept(parts.spy);
        writeResults(ctx, r, WorkResult.success(), WorkResult.success());
        return ids;
    }

    @Test
    void resultsTheStoreCouldNotTakeForAMomentAreWrittenAgainAtOnce() {
        List<Long> ids = twoSucceededWith(spy -> spy.failNext("applyEach",
                new StatekitException(ErrorCode.STORE_UNAVAILABLE, "connection lost")));
        assertThat(parts.spy.calls("applyEach")).hasSize(2);
        for (long id : ids) {
            assertThat(parts.task(id).state()).isEqualTo("DONE");
            assertThat(parts.task(id).lease()).isNull();
            assertThat(parts.events(id)).containsExactly("START", "COMPLETE");
        }
    }

    @Test
    void aStoreThatStaysUnavailableLeavesTheLeasesToRecoveryAfterThreeTries() {
        List<Long> ids = twoSucceededWith(spy -> spy.failWhen("applyEach", args -> true,
                new StatekitException(ErrorCode.STORE_UNAVAILABLE, "server restarting")));
        assertThat(parts.spy.calls("applyEach")).hasSize(ResultWriter.WRITE_ATTEMPTS);
        for (long id : ids) {
            assertThat(parts.task(id).state()).isEqualTo("RUNNING");
            assertThat(parts.task(id).lease().owner()).isEqualTo("r");
        }
    }

    @Test
    void aStoreFailureThatIsNotAMomentsUnavailabilityIsNotWrittenAgain() {
        List<Long> ids = twoSucceededWith(spy -> spy.failNext("applyEach", new StatekitException(ErrorCode.STORE_FAILURE, "disk full")));
        assertThat(parts.spy.calls("applyEach")).hasSize(1);
        for (long id : ids) assertThat(parts.task(id).state()).isEqualTo("RUNNING");
    }

    @Test
    void aResultAppliedBeforeItsAnswerWasLostIsTurnedDownWhenWrittenAgain() {
        List<Long> ids = twoSucceededWith(spy -> spy.afterNext("applyEach", () -> {
            throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "the answer was lost");
        }));
        assertThat(parts.spy.calls("applyEach")).hasSize(2);
        for (long id : ids) {
            assertThat(parts.task(id).state()).isEqualTo("DONE");
            assertThat(parts.events(id)).containsExactly("START", "COMPLETE");
        }
    }

    @Test
    void aResultTheTableRefusesFailsTheTask() {
        Machine<Jobs.State, Jobs.Event> m = gated("gated", false, true);
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(m, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(m, "q");
        writeResults(ctx, r, WorkResult.success());
        assertThat(parts.task(id).state()).isEqualTo("FAILED");
        assertThat(parts.task(id).lease()).isNull();
        TaskError error = parts.task(id).lastError();
        assertThat(error.code()).isEqualTo(Settlement.RESULT_REFUSED);
        assertThat(error.message()).contains("OUTPUT_MISSING").contains("no output was reported");
        assertThat(error.retryable()).isFalse();
        HistoryEntry last = parts.last(id);
        assertThat(last.event()).isEqualTo("FAIL");
        assertThat(last.reason()).isEqualTo("result refused");
        assertThat(parts.events(id)).containsExactly("START", "FAIL");
        assertThat(wakeUps).isEmpty();
    }

    @Test
    void aRefusedResultWhoseFailureIsRefusedTooReleasesTheTask() {
        Machine<Jobs.State, Jobs.Event> m = gated("stubborn", true, true);
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(m, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(m, "q");
        writeResults(ctx, r, WorkResult.success());
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
        assertThat(parts.task(id).lease()).isNull();
        assertThat(parts.task(id).lastError().code()).isEqualTo(Settlement.RESULT_REFUSED);
        assertThat(parts.events(id)).containsExactly("START", "RELEASE");
        assertThat(parts.last(id).reason()).isEqualTo("result refused");
    }

    @Test
    void aRefusedResultOfAMachineWithoutAReleaseRowPutsTheTaskBackWhereItWasClaimed() {
        Machine<Jobs.State, Jobs.Event> m = Machine.builder("rowless", Jobs.State.class, Jobs.Event.class)
                .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED)
                .initial(Jobs.State.QUEUED).terminal(Jobs.State.DONE, Jobs.State.FAILED)
                .transition(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING, SYSTEM)
                .row(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE).by(SYSTEM)
                    .guard("has-output", (task, command) -> Verdict.when(command.attributes().containsKey("output"),
                            "OUTPUT_MISSING", "no output was reported")).add()
                .row(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED).by(SYSTEM)
                    .guard("worker-failures-only", (task, command) -> Verdict.when(command.error() == null
                            || !command.error().code().equals(Settlement.RESULT_REFUSED), "NOT_A_WORKER_FAILURE", "refused result")).add()
                .run(r -> r.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL))
                .build();
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(m, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(m, "q");
        writeResults(ctx, r, WorkResult.success());
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
        assertThat(parts.task(id).lease()).isNull();
        assertThat(parts.task(id).lastError().code()).isEqualTo(Settlement.RESULT_REFUSED);
        assertThat(parts.events(id)).containsExactly("START", "RELEASE");
    }

    @Test
    void aTaskThatCanBeNeitherFailedNorReleasedKeepsItsLeaseForRecovery() {
        Machine<Jobs.State, Jobs.Event> m = gated("stuck", true, false);
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(m, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        long id = parts.enqueue(m, "q");
        writeResults(ctx, r, WorkResult.success());
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.task(id).lease()).isNotNull();
        assertThat(parts.task(id).lease().owner()).isEqualTo("r");
        assertThat(parts.events(id)).containsExactly("START");
    }

    @Test
    void aResultUnderALostLeaseIsDiscarded() {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        RuntimeContext other = parts.started("other", r);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        List<Run<Jobs.State, Jobs.Event>> runs = RuntimeParts.claim(ctx, r);
        parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.RELEASE, Command.system().reason("operator reset"));
        assertThat(RuntimeParts.claim(other, r)).hasSize(1);
        Lease theirs = parts.task(id).lease();
        ResultWriter writer = RuntimeParts.writer(ctx, wakeUps::add);
        writer.write(List.of(writer.settle(runs.get(0), WorkResult.retryable("BUSY", "later"), parts.clock.now())));
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.task(id).lease()).isEqualTo(theirs);
        assertThat(parts.task(id).lastError()).isNull();
        assertThat(parts.events(id)).containsExactly("START", "RELEASE", "START");
        assertThat(wakeUps).isEmpty();
    }

    @Test
    void aStoreThatCannotWriteTheResultsLeavesTheTasksToLeaseRecovery() {
        parts.batchSize = 2;
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);
        long first = parts.enqueue(Jobs.MACHINE, "q");
        long second = parts.enqueue(Jobs.MACHINE, "q");
        parts.spy.failNext("applyEach", new IllegalStateException("connection reset"));
        writeResults(ctx, r, WorkResult.retryable("BUSY", "later"), WorkResult.success());
        for (long id : List.of(first, second)) {
            assertThat(parts.task(id).state()).isEqualTo("RUNNING");
            assertThat(parts.task(id).lease().owner()).isEqualTo("r");
            assertThat(parts.events(id)).containsExactly("START");
        }
        assertThat(wakeUps).isEmpty();
    }
}
