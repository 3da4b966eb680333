package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.GroupsTest;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.Machine;
import dev.statekit.core.StoreSpy;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Chunks;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A runtime's retention passes under a manual clock and a manual executor: finished tasks leave the
 * hot table when their time is up, in batches, into the archive (readable by id with their history
 * through the engine) or nowhere; archived tasks are deleted after their time; parents go with their
 * children; a stopped runtime runs no pass.
 */
class RuntimeRetentionTest {
    static final Duration MINUTE = Duration.ofMinutes(1);

    final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T08:00:00Z"));
    final ManualExecutor executor = new ManualExecutor();
    final StoreSpy spy = new StoreSpy();
    final TransitionEngine engine = TransitionEngine.builder().store(spy.store).clock(clock).build();

    TaskRuntimeBuilder builder() {
        return TaskRuntime.builder(engine).owner("r").executor(executor).workers(2).pollInterval(Duration.ofSeconds(1))
                .retentionInterval(MINUTE).seed(7)
                .register(Jobs.MACHINE, "q", ctx -> ctx.task().attributes().get("fail") != null
                        ? WorkResult.fatal("BAD", "asked to fail") : WorkResult.success(), QueueOptions.defaults());
    }

    long enqueue() {
        return engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
    }

    /** Advances the clock second by second, running what falls due. */
    void advance(Duration d) {
        for (long s = 0; s < d.toSeconds(); s++) {
            clock.advance(Duration.ofSeconds(1));
            executor.runAll();
        }
    }

    List<String> events(long id) {
        return engine.history(id).stream().map(HistoryEntry::event).collect(Collectors.toList());
    }

    @Test
    void finishedTasksMoveToTheArchiveWhenTheirTimeIsUpAndStayReadableByIdWithTheirHistory() {
        TaskRuntime rt = builder().retain(Jobs.MACHINE, Retention.archive(Duration.ofMinutes(10))).build();
        rt.start();
        long done = enqueue();
        long failed = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").attribute("fail", "yes")).task().id();
        executor.runAll();
        assertThat(engine.find(Jobs.MACHINE, done).orElseThrow().state()).isEqualTo(Jobs.State.DONE);
        assertThat(engine.find(Jobs.MACHINE, failed).orElseThrow().state()).as("failed, which is not terminal").isEqualTo(Jobs.State.FAILED);

        advance(Duration.ofMinutes(9));
        assertThat(spy.calls("archive")).as("a pass every minute").hasSize(9);
        assertThat(engine.find(Jobs.MACHINE, done)).as("finished for 9 minutes: still hot").isPresent();

        advance(Duration.ofMinutes(2));
        assertThat(engine.find(Jobs.MACHINE, done)).isEmpty();
        Task<Jobs.State> archived = engine.findArchived(Jobs.MACHINE, done).orElseThrow();
        assertThat(archived.state()).isEqualTo(Jobs.State.DONE);
        assertThat(archived.id()).isEqualTo(done);
        assertThat(engine.history(Jobs.MACHINE, done)).extracting(HistoryStep::event).containsExactly(Jobs.Event.START, Jobs.Event.COMPLETE);
        assertThat(events(done)).containsExactly("START", "COMPLETE");
        assertThat(engine.findArchived(RuntimeParts.PLAIN, done)).as("another machine's task").isEmpty();
        assertThat(engine.history(RuntimeParts.PLAIN, done)).isEmpty();
        assertThat(spy.base.findArchived(done).orElseThrow().archivedAt()).as("archived at the pass after 10 minutes")
                .isEqualTo(Instant.parse("2026-03-01T08:11:00Z"));

        assertThat(engine.find(Jobs.MACHINE, failed)).as("an unfinished task stays").isPresent();
        assertThat(engine.findArchived(Jobs.MACHINE, failed)).isEmpty();
        assertThat(engine.history(Jobs.MACHINE, failed)).hasSize(2);
    }

    @Test
    void aPassRunsBatchAfterBatchWhileTheyComeBackFull() {
        TaskRuntime rt = builder().retain(Jobs.MACHINE, Retention.archive(Duration.ZERO)).retentionBatch(2).build();
        rt.start();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) ids.add(enqueue());
        executor.runAll();
        spy.clear();
        advance(MINUTE);
        assertThat(spy.calls("archive")).as("batches of 2, 2, 1").hasSize(3);
        for (long id : ids) assertThat(engine.findArchived(Jobs.MACHINE, id)).isPresent();
        assertThat(spy.calls("archive").get(0).args().get(0)).isInstanceOfSatisfying(dev.statekit.store.RetentionRequest.class, r -> {
            assertThat(r.machine()).isEqualTo("job");
            assertThat(r.max()).isEqualTo(2);
            assertThat(r.finishedBefore()).isEqualTo(clock.now());
            assertThat(r.finished()).containsEntry("job", java.util.Set.of("DONE", "CANCELED"));
        });
    }

    @Test
    void aDeletingRetentionDeletesAndArchivedTasksAreDeletedAfterTheirTimeInTheArchive() {
        Machine<Jobs.State, Jobs.Event> other = Jobs.machine("other", false, false);
        TaskRuntime rt = builder().register(other, "o", ctx -> WorkResult.success(), QueueOptions.defaults())
                .retain(Jobs.MACHINE, Retention.archive(Duration.ZERO).thenDelete(Duration.ofMinutes(30)))
                .retain(other, Retention.delete(Duration.ZERO)).build();
        rt.start();
        long archived = enqueue();
        long deleted = engine.create(other, TaskSpec.defaults().queue("o")).task().id();
        executor.runAll();

        advance(MINUTE);
        assertThat(engine.findArchived(Jobs.MACHINE, archived)).isPresent();
        assertThat(engine.find(other, deleted)).isEmpty();
        assertThat(engine.findArchived(other, deleted)).as("deleted, not archived").isEmpty();
        assertThat(engine.history(deleted)).isEmpty();

        advance(Duration.ofMinutes(29));
        assertThat(engine.findArchived(Jobs.MACHINE, archived)).as("29 minutes in the archive").isPresent();
        advance(MINUTE);
        assertThat(engine.findArchived(Jobs.MACHINE, archived)).as("30 minutes, at the next pass").isPresent();
        advance(MINUTE);
        assertThat(engine.findArchived(Jobs.MACHINE, archived)).isEmpty();
        assertThat(engine.history(archived)).isEmpty();
        assertThat(spy.calls("purgeArchived")).allSatisfy(c -> assertThat(c.args().get(0)).isEqualTo("job"));
    }

    @Test
    void aParentGoesWithItsChildrenOnceItAndTheyHaveFinished() {
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(2).pollInterval(Duration.ofSeconds(1))
                .retentionInterval(MINUTE).seed(7)
                .register(GroupsTest.CHUNK, ctx -> WorkResult.success())
                .resolves(GroupsTest.JOB)
                .retain(GroupsTest.JOB, Retention.archive(Duration.ZERO))
                .build();
        rt.start();
        long job = engine.create(GroupsTest.JOB).task().id();
        assertThat(engine.fireWithChildren(GroupsTest.JOB, job, GroupsTest.JobEvent.PROCESS, Command.user("ann"),
                List.of(TaskSpec.defaults(), TaskSpec.defaults())).isApplied()).isTrue();
        List<Long> chunks = spy.base.query(dev.statekit.store.TaskQuery.all().parent(job)).items().stream().map(TaskRecord::id).toList();
        assertThat(chunks).hasSize(2);
        advance(Duration.ofSeconds(5));
        assertThat(engine.find(GroupsTest.JOB, job).orElseThrow().state()).isEqualTo(GroupsTest.JobState.DONE);

        advance(MINUTE);
        assertThat(engine.findArchived(GroupsTest.JOB, job)).isPresent();
        for (long chunk : chunks) {
            assertThat(engine.find(GroupsTest.CHUNK, chunk)).isEmpty();
            assertThat(engine.findArchived(GroupsTest.CHUNK, chunk).orElseThrow().state()).isEqualTo(Chunks.State.DONE);
            assertThat(spy.base.findArchived(chunk).orElseThrow().rootId()).isEqualTo(job);
            assertThat(engine.history(GroupsTest.CHUNK, chunk)).extracting(HistoryStep::eventName).containsExactly("START", "COMPLETE");
        }
    }

    @Test
    void aParentWhoseChildIsUnfinishedStaysWithItsChildren() {
        TaskRuntime rt = builder().retain(Jobs.MACHINE, Retention.delete(Duration.ZERO)).build();
        rt.start();
        long parent = enqueue();
        executor.runAll();
        long child = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("elsewhere").parent(parent)).task().id();
        advance(Duration.ofMinutes(3));
        assertThat(engine.find(Jobs.MACHINE, parent)).as("its child waits on a queue nobody serves").isPresent();
        assertThat(engine.find(Jobs.MACHINE, child)).isPresent();
        assertThat(engine.fire(Jobs.MACHINE, child, Jobs.Event.CANCEL, Command.user("ann")).isApplied()).isTrue();
        advance(MINUTE);
        assertThat(engine.find(Jobs.MACHINE, parent)).isEmpty();
        assertThat(engine.find(Jobs.MACHINE, child)).isEmpty();
    }

    @Test
    void aStoppedRuntimeRunsNoPassAndAFailedPassIsFollowedByTheNext() {
        TaskRuntime rt = builder().retain(Jobs.MACHINE, Retention.archive(Duration.ZERO)).build();
        rt.start();
        long first = enqueue();
        executor.runAll();
        spy.failNext("archive", new IllegalStateException("database away"));
        advance(MINUTE);
        assertThat(engine.find(Jobs.MACHINE, first)).as("the failed pass moved nothing").isPresent();
        advance(MINUTE);
        assertThat(engine.findArchived(Jobs.MACHINE, first)).as("the next pass did").isPresent();

        long second = enqueue();
        executor.runAll();
        rt.stop(Duration.ZERO);
        executor.runAll();
        spy.clear();
        advance(Duration.ofMinutes(5));
        assertThat(spy.calls("archive")).isEmpty();
        assertThat(engine.find(Jobs.MACHINE, second)).isPresent();
    }

    @Test
    void aRuntimeWithoutRetentionNeverAsksTheStoreToMoveTasks() {
        TaskRuntime rt = builder().build();
        rt.start();
        enqueue();
        advance(Duration.ofMinutes(3));
        assertThat(spy.calls("archive")).isEmpty();
        assertThat(spy.calls("deleteFinished")).isEmpty();
        assertThat(spy.calls("purgeArchived")).isEmpty();
    }

    @Test
    void passesDoNotPileUpWhileOneIsQueuedOrRunning() {
        TaskRuntime rt = builder().retain(Jobs.MACHINE, Retention.archive(Duration.ZERO)).build();
        rt.start();
        executor.runAll();
        spy.clear();
        clock.advance(Duration.ofMinutes(3));           // three ticks while the executor runs nothing
        executor.runAll();
        assertThat(spy.calls("archive")).as("one pass for three ticks").hasSize(1);

        spy.clear();
        spy.afterNext("archive", () -> clock.advance(MINUTE));     // a tick during the pass
        clock.advance(MINUTE);
        executor.runAll();
        assertThat(spy.calls("archive")).as("the tick during the pass asked for none").hasSize(1);
        advance(MINUTE);
        assertThat(spy.calls("archive")).as("the next tick after it does").hasSize(2);
    }
}
