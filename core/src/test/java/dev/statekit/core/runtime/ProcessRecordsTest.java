package dev.statekit.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.Attempt;
import dev.statekit.core.ops.ProcessView;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.ProcessRecord;
import dev.statekit.store.ProcessState;
import dev.statekit.store.TaskError;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The process record a runtime keeps in the store, and the attempts and error details an operator reads. */
class ProcessRecordsTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final TaskOperations ops = TaskOperations.of(engine);

    TaskRuntimeBuilder builder(String owner, Worker<Jobs.State> worker) {
        return TaskRuntime.builder(engine).owner(owner).executor(executor).workers(2)
                .leaseDuration(Duration.ofSeconds(30)).heartbeat(Duration.ofSeconds(10)).pollInterval(Duration.ofSeconds(1))
                .cancelGrace(Duration.ofSeconds(10)).seed(7)
                .register(Jobs.MACHINE, "q", worker, QueueOptions.defaults());
    }

    long enqueue() {
        return engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
    }

    ProcessRecord record(String owner) {
        return store.processes().stream().filter(p -> p.owner().equals(owner)).findFirst().orElseThrow();
    }

    @Test
    void aRuntimeRegistersRefreshesAndStopsItsRecord() {
        Instant t0 = clock.now();
        TaskRuntime rt = builder("r1", ctx -> WorkResult.success()).build();
        rt.start();
        executor.runAll();
        ProcessRecord started = record("r1");
        assertThat(started.startedAt()).isEqualTo(t0);
        assertThat(started.lastSeen()).isEqualTo(t0);
        assertThat(started.machines()).containsExactly(Jobs.MACHINE.name());
        assertThat(started.queues()).containsExactly("q");
        assertThat(started.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(started.goneAfter()).as("the lease duration by default").isEqualTo(Duration.ofSeconds(30));
        assertThat(started.state(clock.now())).isEqualTo(ProcessState.ALIVE);

        clock.advance(Duration.ofSeconds(10));
        executor.runAll();
        assertThat(record("r1").lastSeen()).as("refreshed at the heartbeat").isEqualTo(t0.plusSeconds(10));
        clock.advance(Duration.ofSeconds(10));
        executor.runAll();
        assertThat(record("r1").lastSeen()).isEqualTo(t0.plusSeconds(20));

        rt.stop(Duration.ofSeconds(5));
        executor.runAll();
        ProcessRecord stopped = record("r1");
        assertThat(stopped.stoppedAt()).isEqualTo(t0.plusSeconds(20));
        assertThat(stopped.state(clock.now().plus(Duration.ofDays(1)))).isEqualTo(ProcessState.STOPPED);
        assertThat(ops.processes()).extracting(ProcessView::state).containsExactly(ProcessState.STOPPED);
    }

    @Test
    void aHaltedRuntimeIsGoneOnceNotSeenForItsGoneAfter() {
        TaskRuntime rt = builder("r1", ctx -> WorkResult.success()).processGoneAfter(Duration.ofSeconds(25)).build();
        rt.start();
        executor.runAll();
        rt.halt();
        clock.advance(Duration.ofSeconds(25));
        executor.runAll();
        assertThat(ops.processes()).extracting(ProcessView::state).containsExactly(ProcessState.ALIVE);
        clock.advance(Duration.ofSeconds(1));
        assertThat(ops.processes()).extracting(ProcessView::state).containsExactly(ProcessState.GONE);
        assertThat(record("r1").stoppedAt()).isNull();
    }

    @Test
    void oldRecordsArePurgedAtTheStartAndOncePerRetention() {
        Instant t0 = clock.now();
        store.registerProcess(new ProcessRecord("crashed", "h", null, List.of(), List.of(), t0.minus(Duration.ofDays(3)),
                t0.minus(Duration.ofHours(2)), Duration.ofSeconds(30), null));
        store.registerProcess(new ProcessRecord("recent", "h", null, List.of(), List.of(), t0.minusSeconds(60), t0.minusSeconds(60),
                Duration.ofSeconds(30), null));
        TaskRuntime rt = builder("r1", ctx -> WorkResult.success()).processRetention(Duration.ofHours(1)).build();
        rt.start();
        executor.runAll();
        assertThat(store.processes()).extracting(ProcessRecord::owner).containsExactly("r1", "recent");
        for (int i = 0; i < 6 * 60; i++) {      // an hour of heartbeats: "recent" was last seen more than an hour ago then
            clock.advance(Duration.ofSeconds(10));
            executor.runAll();
        }
        assertThat(store.processes()).extracting(ProcessRecord::owner).containsExactly("r1");
        rt.halt();
    }

    @Test
    void aPurgedRecordIsWrittenAgainAtTheNextHeartbeat() {
        TaskRuntime rt = builder("r1", ctx -> WorkResult.success()).build();
        rt.start();
        executor.runAll();
        store.purgeProcesses(clock.now().plusSeconds(1));
        assertThat(store.processes()).isEmpty();
        clock.advance(Duration.ofSeconds(10));
        executor.runAll();
        assertThat(record("r1").lastSeen()).isEqualTo(clock.now());
        rt.halt();
    }

    @Test
    void theGoneAfterMustBeLongerThanTheHeartbeat() {
        assertThatThrownBy(() -> builder("r1", ctx -> WorkResult.success()).processGoneAfter(Duration.ofSeconds(10)).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("processGoneAfter");
        assertThatThrownBy(() -> builder("r1", ctx -> WorkResult.success()).processGoneAfter(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder("r1", ctx -> WorkResult.success()).processRetention(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aProcessListsTheLeasesItHoldsNow() {
        TaskRuntime rt = builder("r1", ctx -> WorkResult.success()).build();
        rt.start();
        executor.runAll();
        long a = enqueue();
        long b = enqueue();
        executor.runNext();          // a dispatch round claims both; their workers wait in the executor
        List<ProcessView> views = ops.processes();
        assertThat(views).hasSize(1);
        assertThat(views.get(0).leases()).extracting(t -> t.id()).containsExactlyInAnyOrder(a, b);
        assertThat(views.get(0).moreLeases()).isFalse();
        executor.runAll();
        assertThat(ops.processes().get(0).leases()).isEmpty();
        rt.halt();
    }

    static final class DiskFull extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DiskFull(String message) {
            super(message);
        }
    }

    static WorkResult throwFromDeepInside(int depth) {
        if (depth > 0) return throwFromDeepInside(depth - 1);
        throw new DiskFull("disk full");
    }

    @Test
    void aThrownExceptionLeavesItsStackTraceOnTheTaskAndInItsHistory() {
        AtomicInteger calls = new AtomicInteger();
        TaskRuntime rt = builder("r1", ctx -> {
            if (calls.incrementAndGet() == 1) throw new IllegalStateException("first try", new DiskFull("underneath"));
            return throwFromDeepInside(2000);
        }).classifier(e -> e instanceof DiskFull ? WorkResult.fatal("DISK_FULL", e.getMessage())
                : WorkResult.retryable("TRY_AGAIN", String.valueOf(e.getMessage()))).build();
        rt.start();
        long id = enqueue();
        executor.runAll();
        for (int i = 0; i < 60 && engine.find(Jobs.MACHINE, id).orElseThrow().state() != Jobs.State.FAILED; i++) {
            clock.advance(Duration.ofSeconds(1));
            executor.runAll();
        }
        TaskError last = engine.find(Jobs.MACHINE, id).orElseThrow().record().lastError();
        assertThat(last).isNotNull();
        assertThat(last.detail()).startsWith(DiskFull.class.getName() + ": disk full").contains("throwFromDeepInside")
                .hasSizeLessThanOrEqualTo(TaskError.MAX_DETAIL).contains("\t... ").doesNotContain(TaskError.CUT);

        List<HistoryEntry> history = engine.history(id);
        List<TaskError> errors = history.stream().map(HistoryEntry::error).filter(e -> e != null).toList();
        assertThat(errors).isNotEmpty();
        assertThat(errors.get(0).detail()).startsWith("java.lang.IllegalStateException: first try")
                .contains("Caused by: " + DiskFull.class.getName() + ": underneath");
        assertThat(errors.get(errors.size() - 1)).isEqualTo(last);

        List<Attempt> attempts = ops.attempts(id);
        assertThat(engine.find(Jobs.MACHINE, id).orElseThrow().record().attempts()).isEqualTo(2);
        assertThat(attempts).extracting(Attempt::number).containsExactly(1, 2);
        assertThat(last.code()).isEqualTo("DISK_FULL");
        assertThat(attempts.get(0).error().code()).isEqualTo("TRY_AGAIN");
        assertThat(attempts).allSatisfy(a -> {
            assertThat(a.worker()).isEqualTo("r1");
            assertThat(a.running()).isFalse();
            assertThat(a.duration()).isEqualTo(Duration.between(a.claim().at(), a.end().at()));
            assertThat(a.error()).isNotNull();
        });
        assertThat(attempts.get(0).error().detail()).contains("first try");
        assertThat(attempts.get(attempts.size() - 1).error()).isEqualTo(last);
        rt.halt();
    }

    @Test
    void aRunningAttemptCountsItsDurationToNow() {
        TaskRuntime rt = builder("r1", ctx -> WorkResult.success()).build();
        rt.start();
        executor.runAll();
        long id = enqueue();
        executor.runNext();          // claimed, its worker not run yet
        clock.advance(Duration.ofSeconds(7));
        List<Attempt> attempts = ops.attempts(id);
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).running()).isTrue();
        assertThat(attempts.get(0).duration()).isEqualTo(Duration.ofSeconds(7));
        assertThat(attempts.get(0).error()).isNull();
        executor.runAll();
        attempts = ops.attempts(id);
        assertThat(attempts.get(0).running()).isFalse();
        assertThat(attempts.get(0).end().event()).isEqualTo("COMPLETE");
        assertThat(ops.attempts(id + 1000)).as("no such task").isEmpty();
        rt.halt();
    }
}
