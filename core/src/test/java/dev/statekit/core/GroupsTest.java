package dev.statekit.core;

import dev.statekit.core.runtime.TaskRuntime;
import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Chunks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Parents with children and tasks with dependencies, resolved by explicit passes under a manual
 * clock: the events a parent gets from its children's endings, exactly once; holds, cascades,
 * re-opening; dependents released or failed. Each failure mode the field reports for fan-in has
 * its own test, named after it.
 */
public class GroupsTest {
    public enum JobState { CREATED, PROCESSING, PAUSED, DONE, ERROR, CANCELLED }

    public enum JobEvent { PROCESS, CHUNKS_DONE, CHUNKS_FAILED, REOPEN, PAUSE, RESUME, CANCEL }

    public static final Machine<Chunks.State, Chunks.Event> CHUNK = Chunks.machine("chunk", USER, SYSTEM);

    static Machine<JobState, JobEvent> job(boolean failFast) {
        return Machine.builder(failFast ? "job-ff" : "job", JobState.class, JobEvent.class)
                .initial(JobState.CREATED)
                .terminal(JobState.DONE, JobState.CANCELLED)
                .transition(JobState.CREATED, JobEvent.PROCESS, JobState.PROCESSING, USER)
                .transition(JobState.PROCESSING, JobEvent.CHUNKS_DONE, JobState.DONE, SYSTEM)
                .transition(JobState.PROCESSING, JobEvent.CHUNKS_FAILED, JobState.ERROR, SYSTEM)
                .transition(JobState.ERROR, JobEvent.REOPEN, JobState.PROCESSING, SYSTEM)
                .transition(JobState.PROCESSING, JobEvent.PAUSE, JobState.PAUSED, USER)
                .transition(JobState.PAUSED, JobEvent.RESUME, JobState.PROCESSING, USER)
                .transition(JobState.CREATED, JobEvent.CANCEL, JobState.CANCELLED, USER)
                .transition(JobState.PROCESSING, JobEvent.CANCEL, JobState.CANCELLED, USER)
                .transition(JobState.PAUSED, JobEvent.CANCEL, JobState.CANCELLED, USER)
                .transition(JobState.ERROR, JobEvent.CANCEL, JobState.CANCELLED, USER)
                .children(CHUNK, c -> {
                    c.whenSucceeded(JobEvent.CHUNKS_DONE).whenFailed(JobEvent.CHUNKS_FAILED).reopen(JobEvent.REOPEN)
                            .holdIn(JobState.PAUSED).cancelIn(JobState.CANCELLED);
                    if (failFast) c.failFast();
                })
                .build();
    }

    public static final Machine<JobState, JobEvent> JOB = job(false);

    final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();

    long startJob(Machine<JobState, JobEvent> machine, int chunks) {
        long id = engine.create(machine).task().id();
        List<TaskSpec> specs = new ArrayList<>();
        for (int i = 0; i < chunks; i++) specs.add(TaskSpec.defaults().idempotencyKey(id + ":" + i).attribute("index", "" + i));
        Outcome<JobState> o = engine.fireWithChildren(machine, id, JobEvent.PROCESS, Command.user("ann").idempotencyKey("process-" + id), specs);
        assertThat(o.isApplied()).isTrue();
        return id;
    }

    List<TaskRecord> claim(int max) {
        List<TaskRecord> claimed = new ArrayList<>();
        ClaimRequest request = new ClaimRequest(CHUNK.name(), CHUNK.name(), List.of(new ClaimRule("PENDING", "START", "RUNNING")), "w",
                clock.now(), Duration.ofSeconds(30), max, 0);
        for (Claimed c : store.claim(request)) claimed.add(c.task());
        return claimed;
    }

    void finish(TaskRecord chunk, Chunks.Event event) {
        assertThat(engine.fire(CHUNK, chunk.id(), event).isApplied()).isTrue();
    }

    int resolve(Machine<?, ?> machine) {
        return engine.resolveGroups(List.of(machine), 10);
    }

    String state(long id) {
        return store.find(id).orElseThrow().state();
    }

    long fired(long id, String event) {
        return store.history(id).stream().map(HistoryEntry::event).filter(event::equals).count();
    }

    @Nested
    class Children {
        @Test
        void theParentCompletesOnceWhenItsLastChildSucceeds() {
            long job = startJob(JOB, 3);
            List<TaskRecord> chunks = claim(10);
            assertThat(chunks).hasSize(3).allSatisfy(c -> assertThat(c.parentId()).isEqualTo(job));
            finish(chunks.get(0), Chunks.Event.COMPLETE);
            finish(chunks.get(1), Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("PROCESSING");
            finish(chunks.get(2), Chunks.Event.COMPLETE);
            resolve(JOB);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(fired(job, "CHUNKS_DONE")).isEqualTo(1);
            assertThat(store.pendingMarks()).isZero();
        }

        @Test
        void progressCountsTheChildrenPerStateInOneRead() {
            long job = startJob(JOB, 4);
            List<TaskRecord> chunks = claim(3);
            finish(chunks.get(0), Chunks.Event.COMPLETE);
            finish(chunks.get(1), Chunks.Event.FAIL);
            resolve(JOB);
            GroupProgress p = engine.progress(JOB, job).orElseThrow();
            assertThat(p.total()).isEqualTo(4);
            assertThat(p.succeeded()).isEqualTo(1);
            assertThat(p.failed()).isEqualTo(1);
            assertThat(p.running()).isEqualTo(1);
            assertThat(p.waiting()).isEqualTo(1);
            assertThat(p.sealed()).isTrue();
            assertThat(p.resolution()).isNull();
            assertThat(p.byState()).containsEntry("PENDING", 1L).containsEntry("RUNNING", 1L).containsEntry("DONE", 1L)
                    .containsEntry("ERROR", 1L);
        }

        @Test
        void aFailedChildFailsTheParentOnlyOnceEveryChildHasEnded() {
            long job = startJob(JOB, 2);
            List<TaskRecord> chunks = claim(10);
            finish(chunks.get(0), Chunks.Event.FAIL);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("PROCESSING");
            finish(chunks.get(1), Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("ERROR");
            HistoryEntry last = store.history(job).get(store.history(job).size() - 1);
            assertThat(last.reason()).isEqualTo("1 of 2 children succeeded, 1 failed, 0 cancelled");
        }

        @Test
        void errorsAreAttributedToTheChildrenThatFailedWithTheirCodes() {
            long job = startJob(JOB, 3);
            List<TaskRecord> chunks = claim(10);
            engine.fire(CHUNK, chunks.get(0).id(), Chunks.Event.FAIL, Command.system().error(new dev.statekit.store.TaskError("HTTP_400",
                    "bad request", false, null)));
            engine.fire(CHUNK, chunks.get(1).id(), Chunks.Event.FAIL, Command.system().error(new dev.statekit.store.TaskError("IO_ERROR",
                    "disk full", true, null)));
            finish(chunks.get(2), Chunks.Event.COMPLETE);
            resolve(JOB);
            dev.statekit.store.TaskError error = store.find(job).orElseThrow().lastError();
            assertThat(error.code()).isEqualTo("CHILDREN_FAILED");
            assertThat(error.message()).isEqualTo("2 of 3 children failed: task " + chunks.get(0).id() + " HTTP_400 (bad request); task "
                    + chunks.get(1).id() + " IO_ERROR (disk full)");
        }

        @Test
        void failFastFailsTheParentOnTheFirstFailedChild() {
            Machine<JobState, JobEvent> ff = job(true);
            long job = startJob(ff, 3);
            List<TaskRecord> chunks = claim(10);
            finish(chunks.get(0), Chunks.Event.FAIL);
            resolve(ff);
            assertThat(state(job)).isEqualTo("ERROR");
            finish(chunks.get(1), Chunks.Event.COMPLETE);
            finish(chunks.get(2), Chunks.Event.COMPLETE);
            resolve(ff);
            assertThat(fired(job, "CHUNKS_FAILED")).isEqualTo(1);
            assertThat(state(job)).isEqualTo("ERROR");
        }

        @Test
        void crashBetweenChildCommitAndParentTransitionIsHealedByTheNextPassAnywhere() {
            long job = startJob(JOB, 2);
            for (TaskRecord c : claim(10)) finish(c, Chunks.Event.COMPLETE);
            // the process that completed the children died before any pass: nothing in memory is needed,
            // a fresh engine over the same store (another process) resolves the group from the marks.
            TransitionEngine other = TransitionEngine.builder().store(store).clock(clock).build();
            assertThat(other.resolveGroups(List.of(JOB), 10)).isPositive();
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(fired(job, "CHUNKS_DONE")).isEqualTo(1);
        }

        @Test
        void prematureCompletionBeforeTheGroupIsSealedNeverResolvesIt() {
            long job = engine.create(JOB).task().id();
            engine.fire(JOB, job, JobEvent.PROCESS, Command.user("ann"));
            assertThat(engine.addChildren(JOB, job, List.of(TaskSpec.defaults()))).isTrue();
            resolve(JOB);
            for (TaskRecord c : claim(10)) finish(c, Chunks.Event.COMPLETE);      // the first child ends at once
            resolve(JOB);
            assertThat(state(job)).isEqualTo("PROCESSING");
            assertThat(engine.addChildren(JOB, job, List.of(TaskSpec.defaults(), TaskSpec.defaults()))).isTrue();
            for (TaskRecord c : claim(10)) finish(c, Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("PROCESSING");
            assertThat(engine.sealChildren(JOB, job)).isTrue();
            resolve(JOB);
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(engine.progress(JOB, job).orElseThrow().total()).isEqualTo(3);
            assertThatThrownBy(() -> engine.addChildren(JOB, job, List.of(TaskSpec.defaults())))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
        }

        @Test
        void retentionNeverPurgesAnUnfinishedGroupOrTheMarksItWaitsOn() {
            long job = startJob(JOB, 2);
            for (TaskRecord c : claim(10)) finish(c, Chunks.Event.COMPLETE);      // marks wait for a pass
            Instant later = clock.now().plusSeconds(3600);
            assertThat(store.purge(JOB.name(), List.of("PROCESSING", "DONE"), later, 100)).as("the parent has children and marks").isZero();
            assertThat(store.purge(CHUNK.name(), List.of("DONE"), later, 100)).as("ended children may go").isEqualTo(2);
            assertThat(store.pendingMarks()).isPositive();
            resolve(JOB);
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(engine.progress(JOB, job).orElseThrow().succeeded()).isEqualTo(2);
        }

        @Test
        void exactlyOnceParentTransitionWhenManyChildrenEndTogether() {
            long job = startJob(JOB, 16);
            List<TaskRecord> chunks = claim(16);
            for (TaskRecord c : chunks) finish(c, Chunks.Event.COMPLETE);
            for (int i = 0; i < 3; i++) resolve(JOB);
            assertThat(fired(job, "CHUNKS_DONE")).isEqualTo(1);
        }

        @Test
        void degenerateGroupsOfNoneAndOneChildResolve() {
            long none = startJob(JOB, 0);
            long one = startJob(JOB, 1);
            resolve(JOB);
            assertThat(state(none)).isEqualTo("DONE");
            assertThat(state(one)).isEqualTo("PROCESSING");
            finish(claim(1).get(0), Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(one)).isEqualTo("DONE");
        }

        @Test
        void replayingTheFanOutCommandCreatesNoChildTwice() {
            long job = startJob(JOB, 3);
            Outcome<JobState> again = engine.fireWithChildren(JOB, job, JobEvent.PROCESS, Command.user("ann").idempotencyKey("process-" + job),
                    List.of(TaskSpec.defaults(), TaskSpec.defaults()));
            assertThat(again.isApplied()).isTrue();
            assertThat(((Outcome.Applied<JobState>) again).replayed()).isTrue();
            assertThat(claim(100)).hasSize(3);
        }

        @Test
        void retryOnlyTheFailedChildrenReopensTheParent() {
            long job = startJob(JOB, 2);
            List<TaskRecord> chunks = claim(10);
            finish(chunks.get(0), Chunks.Event.COMPLETE);
            finish(chunks.get(1), Chunks.Event.FAIL);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("ERROR");
            assertThat(engine.fire(CHUNK, chunks.get(1).id(), Chunks.Event.RETRY, Command.user("ann")).isApplied()).isTrue();
            resolve(JOB);
            assertThat(state(job)).isEqualTo("PROCESSING");
            finish(claim(10).get(0), Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(store.history(job)).extracting(HistoryEntry::event)
                    .containsExactly("PROCESS", "CHUNKS_FAILED", "REOPEN", "CHUNKS_DONE");
        }

        @Test
        void aRetriedChildThatSucceedsBeforeAnyPassStillReopensAndCompletesTheParent() {
            long job = startJob(JOB, 1);
            TaskRecord chunk = claim(1).get(0);
            finish(chunk, Chunks.Event.FAIL);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("ERROR");
            engine.fire(CHUNK, chunk.id(), Chunks.Event.RETRY, Command.user("ann"));
            finish(claim(1).get(0), Chunks.Event.COMPLETE);     // retried and done again before any pass saw it open
            assertThat(store.resolveGroups(List.of(JOB.name()), clock.now(), 10,
                    new GroupDecider(Groups.registry(List.of(JOB)), clock.now())).resolved()).isEqualTo(1);
            assertThat(state(job)).isEqualTo("PROCESSING");   // one pass re-opens the parent, and leaves the group awaiting
            assertThat(store.group(job).orElseThrow().awaiting()).isTrue();
            resolve(JOB);                                     // the next pass settles it anew
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(store.history(job)).extracting(HistoryEntry::event).containsExactly("PROCESS", "CHUNKS_FAILED", "REOPEN", "CHUNKS_DONE");
        }

        @Test
        void pausingTheParentHoldsItsWaitingChildrenAndResumingReleasesThem() {
            long job = startJob(JOB, 3);
            TaskRecord running = claim(1).get(0);
            engine.fire(JOB, job, JobEvent.PAUSE, Command.user("ann"));
            resolve(JOB);
            assertThat(claim(10)).isEmpty();
            finish(running, Chunks.Event.COMPLETE);           // the running child goes on
            resolve(JOB);
            engine.fire(JOB, job, JobEvent.RESUME, Command.user("ann"));
            resolve(JOB);
            List<TaskRecord> rest = claim(10);
            assertThat(rest).hasSize(2);
            for (TaskRecord c : rest) finish(c, Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("DONE");
        }

        @Test
        void childrenThatEndWhileTheParentIsPausedSettleItWhenItResumes() {
            long job = startJob(JOB, 1);
            TaskRecord running = claim(1).get(0);
            engine.fire(JOB, job, JobEvent.PAUSE, Command.user("ann"));
            finish(running, Chunks.Event.COMPLETE);
            resolve(JOB);
            assertThat(state(job)).isEqualTo("PAUSED");
            assertThat(store.group(job).orElseThrow().awaiting()).isTrue();
            engine.fire(JOB, job, JobEvent.RESUME, Command.user("ann"));
            resolve(JOB);
            assertThat(state(job)).isEqualTo("DONE");
        }

        @Test
        void cancellationReachesRunningChildren() {
            long job = startJob(JOB, 3);
            TaskRecord running = claim(1).get(0);
            engine.fire(JOB, job, JobEvent.CANCEL, Command.user("ann"));
            resolve(JOB);
            assertThat(store.cancelRequested(running.id())).isTrue();
            assertThat(claim(10)).isEmpty();
            List<String> states = new ArrayList<>();
            for (TaskRecord t : store.query(dev.statekit.store.TaskQuery.all().machine(CHUNK.name())).items()) states.add(t.state());
            assertThat(states).containsExactlyInAnyOrder("RUNNING", "CANCELLED", "CANCELLED");
            // the running child cannot commit success under a lease it no longer holds once it is cancelled
            assertThat(engine.fire(CHUNK, running.id(), Chunks.Event.CANCEL, Command.system()).isApplied()).isTrue();
            Outcome<Chunks.State> late = engine.fire(CHUNK, running.id(), Chunks.Event.COMPLETE,
                    Command.system().underLease(running.lease().fencingToken()));
            assertThat(late.isApplied()).isFalse();
            resolve(JOB);
            assertThat(engine.progress(JOB, job).orElseThrow().cancelled()).isEqualTo(3);
            assertThat(state(job)).isEqualTo("CANCELLED");
        }
    }

    @Nested
    class DependenciesOfTasks {
        enum S { QUEUED, RUNNING, DONE, FAILED, CANCELLED }

        enum E { START, COMPLETE, FAIL, CANCEL, UPSTREAM_FAILED }

        final Machine<S, E> step = Machine.builder("step", S.class, E.class)
                .initial(S.QUEUED)
                .terminal(S.DONE, S.FAILED, S.CANCELLED)
                .succeeded(S.DONE).failed(S.FAILED).cancelled(S.CANCELLED)
                .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
                .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
                .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
                .transition(S.QUEUED, E.CANCEL, S.CANCELLED, USER, SYSTEM)
                .transition(S.QUEUED, E.UPSTREAM_FAILED, S.FAILED, SYSTEM)
                .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).cancel(E.CANCEL).recoverByFailing())
                .dependencies(d -> d.whenFailed(E.UPSTREAM_FAILED).whenCancelled(E.CANCEL))
                .build();

        List<Long> claimSteps() {
            ClaimRequest request = new ClaimRequest("step", "step", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "w",
                    clock.now(), Duration.ofSeconds(30), 100, 0);
            List<Long> ids = new ArrayList<>();
            for (Claimed c : store.claim(request)) ids.add(c.task().id());
            return ids;
        }

        @Test
        void aDependentRunsOnlyOnceEveryDependencySucceeded() {
            long a = engine.create(step).task().id();
            long b = engine.create(step).task().id();
            long summary = engine.create(step, TaskSpec.defaults().dependsOn(a, b)).task().id();
            assertThat(store.dependencies(summary)).containsExactly(a, b);
            assertThat(claimSteps()).containsExactlyInAnyOrder(a, b);
            engine.fire(step, a, E.COMPLETE);
            resolve(step);
            assertThat(claimSteps()).isEmpty();
            engine.fire(step, b, E.COMPLETE);
            resolve(step);
            assertThat(claimSteps()).containsExactly(summary);
        }

        @Test
        void dependenciesOnCancelledOrFailedUpstreamNeverLeaveTheDependentWaiting() {
            long a = engine.create(step).task().id();
            long failing = engine.create(step).task().id();
            long afterFailure = engine.create(step, TaskSpec.defaults().dependsOn(a, failing)).task().id();
            long cancelled = engine.create(step).task().id();
            long afterCancel = engine.create(step, TaskSpec.defaults().dependsOn(cancelled)).task().id();
            claimSteps();
            engine.fire(step, failing, E.FAIL);
            engine.fire(step, cancelled, E.CANCEL, Command.user("ann"));   // was claimed: cancel refused from RUNNING
            resolve(step);
            assertThat(state(afterFailure)).isEqualTo("FAILED");
            assertThat(store.history(afterFailure).get(0).reason()).isEqualTo("1 of 2 dependencies failed");
            assertThat(state(afterCancel)).isEqualTo("QUEUED");
            engine.fire(step, cancelled, E.FAIL);
            resolve(step);
            assertThat(state(afterCancel)).isEqualTo("FAILED");
        }

        @Test
        void aDependencyCancelledBeforeItRanCancelsTheDependent() {
            long a = engine.create(step).task().id();
            long dependent = engine.create(step, TaskSpec.defaults().dependsOn(a)).task().id();
            engine.fire(step, a, E.CANCEL, Command.user("ann"));
            resolve(step);
            assertThat(state(dependent)).isEqualTo("CANCELLED");
        }

        @Test
        void aDependencyThatHasAlreadySucceededReleasesTheDependentAtTheFirstPass() {
            long a = engine.create(step).task().id();
            claimSteps();
            engine.fire(step, a, E.COMPLETE);
            long dependent = engine.create(step, TaskSpec.defaults().dependsOn(a)).task().id();
            assertThat(claimSteps()).isEmpty();
            resolve(step);
            assertThat(claimSteps()).containsExactly(dependent);
        }

        @Test
        void callbackFailuresAreRetriedLikeAnyTask() {
            ManualExecutor executor = new ManualExecutor();
            int[] runs = {0};
            TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                    .register(step, ctx -> ++runs[0] == 2 ? WorkResult.retryable("REPORT_STORE_DOWN", "503") : WorkResult.success())
                    .build();
            rt.start();
            long upstream = engine.create(step).task().id();
            long summary = engine.create(step, TaskSpec.defaults().dependsOn(upstream)).task().id();
            executor.runAll();                          // the upstream runs; the summary is released and fails once
            assertThat(state(summary)).isEqualTo("QUEUED");
            assertThat(store.find(summary).orElseThrow().retries()).isEqualTo(1);
            clock.advance(Duration.ofMinutes(1));
            executor.runAll();
            assertThat(state(summary)).isEqualTo("DONE");
            assertThat(store.history(summary)).extracting(HistoryEntry::event).containsExactly("START", "RETRY", "START", "COMPLETE");
            rt.halt();
        }

        @Test
        void unknownDependenciesAreRefusedWithACode() {
            assertThatThrownBy(() -> engine.create(step, TaskSpec.defaults().dependsOn(999)))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_DEPENDENCY));
            assertThatThrownBy(() -> engine.create(CHUNK, TaskSpec.defaults().dependsOn(1)))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
        }
    }

    @Nested
    class InARuntime {
        final ManualExecutor executor = new ManualExecutor();

        TaskRuntime runtime(String owner, Worker<Chunks.State> worker, Machine<?, ?>... resolves) {
            return TaskRuntime.builder(engine).owner(owner).executor(executor).workers(2).leaseDuration(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofSeconds(1)).seed(3).register(CHUNK, worker).resolves(resolves).build();
        }

        @Test
        void theLastChildsCommitMovesTheParentWithoutWaitingForAPoll() {
            TaskRuntime rt = runtime("r1", ctx -> WorkResult.success(), JOB);
            rt.start();
            executor.runAll();
            long job = startJob(JOB, 5);
            executor.runAll();               // no clock advance: the children's changes asked for a pass
            assertThat(state(job)).isEqualTo("DONE");
            assertThat(fired(job, "CHUNKS_DONE")).isEqualTo(1);
            rt.halt();
        }

        @Test
        void aRuntimeThatDidNotRunTheChildrenResolvesTheirParentAtItsNextPoll() {
            long job = startJob(JOB, 2);
            for (TaskRecord c : claim(10)) finish(c, Chunks.Event.COMPLETE);      // another process, gone since
            TaskRuntime rt = runtime("r2", ctx -> WorkResult.success(), JOB);
            rt.start();
            executor.runAll();               // the start's first housekeeping round resolves what is pending
            assertThat(state(job)).isEqualTo("DONE");
            rt.halt();
        }

        @Test
        void aRuntimeThatResolvesNoParentMachineLeavesTheirGroupsAlone() {
            long job = startJob(JOB, 1);
            TaskRuntime rt = runtime("r3", ctx -> WorkResult.success());
            rt.start();
            executor.runAll();
            clock.advance(Duration.ofSeconds(5));
            executor.runAll();
            assertThat(state(job)).isEqualTo("PROCESSING");
            assertThat(store.pendingMarks()).isPositive();
            assertThat(engine.resolveGroups(List.of(JOB), 10)).isPositive();
            assertThat(state(job)).isEqualTo("DONE");
            rt.halt();
        }
    }

    @Nested
    class Definitions {
        @Test
        void childrenWithoutSucceededStatesOrEventsNoSystemRowFiresAreDefinitionErrorsThatSayHowToFixThem() {
            Machine<Chunks.State, Chunks.Event> plain = Machine.builder("plain-chunk", Chunks.State.class, Chunks.Event.class)
                    .initial(Chunks.State.PENDING).terminal(Chunks.State.DONE, Chunks.State.CANCELLED, Chunks.State.ERROR)
                    .transition(Chunks.State.PENDING, Chunks.Event.START, Chunks.State.RUNNING, SYSTEM)
                    .transition(Chunks.State.RUNNING, Chunks.Event.COMPLETE, Chunks.State.DONE, SYSTEM)
                    .transition(Chunks.State.RUNNING, Chunks.Event.FAIL, Chunks.State.ERROR, SYSTEM)
                    .transition(Chunks.State.PENDING, Chunks.Event.CANCEL, Chunks.State.CANCELLED, USER)
                    .build();
            assertThatThrownBy(() -> Machine.builder("parent", JobState.class, JobEvent.class)
                    .initial(JobState.CREATED).terminal(JobState.DONE, JobState.ERROR, JobState.CANCELLED, JobState.PAUSED)
                    .transition(JobState.CREATED, JobEvent.PROCESS, JobState.PROCESSING, USER)
                    .transition(JobState.PROCESSING, JobEvent.CHUNKS_DONE, JobState.DONE, USER)
                    .transition(JobState.PROCESSING, JobEvent.CHUNKS_FAILED, JobState.ERROR, SYSTEM)
                    .transition(JobState.PROCESSING, JobEvent.CANCEL, JobState.CANCELLED, USER)
                    .transition(JobState.PROCESSING, JobEvent.PAUSE, JobState.PAUSED, USER)
                    .children(plain, c -> c.whenSucceeded(JobEvent.CHUNKS_DONE).whenFailed(JobEvent.CHUNKS_FAILED).cancelIn(JobState.CANCELLED))
                    .build())
                    .isInstanceOf(MachineDefinitionException.class)
                    .hasMessageContaining("MachineBuilder.succeeded")
                    .hasMessageContaining("no row fires CHUNKS_DONE by SYSTEM")
                    .hasMessageContaining("declares no cancel event");
        }
    }
}
