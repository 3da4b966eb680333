package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.GroupsTest;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeEvent.Kind;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The runtime's listeners: which events each of the runtime's duties reports, with which states,
 * codes and durations on the manual clock; a failing listener harms nothing; a write that was
 * refused is never reported.
 */
class RuntimeEventsTest {
    enum S { QUEUED, RUNNING, DONE, FAILED, CANCELLED }

    enum E { START, COMPLETE, FAIL, CANCEL }

    static final Machine<S, E> WORK = Machine.builder("work", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED, S.CANCELLED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
            .transition(S.RUNNING, E.CANCEL, S.CANCELLED, USER)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).timeout(Duration.ofMinutes(1))
                    .retry(RetryPolicy.exponential(1, Duration.ofSeconds(10), Duration.ofSeconds(10))))
            .build();

    /** {@link #WORK} with dependencies. */
    static final Machine<S, E> STEP = Machine.builder("step", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED, S.CANCELLED)
            .succeeded(S.DONE).failed(S.FAILED).cancelled(S.CANCELLED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
            .transition(S.QUEUED, E.CANCEL, S.CANCELLED, USER, SYSTEM)
            .transition(S.QUEUED, E.FAIL, S.FAILED, SYSTEM)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).cancel(E.CANCEL))
            .dependencies(d -> d.whenFailed(E.FAIL).whenCancelled(E.CANCEL))
            .build();

    final Instant t0 = Instant.parse("2031-04-05T13:30:00Z");
    final ManualClock clock = new ManualClock(t0);
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final ManualExecutor executor = new ManualExecutor();
    final List<RuntimeEvent> events = new CopyOnWriteArrayList<>();

    TaskRuntimeBuilder builder() {
        return TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).cancelGrace(Duration.ofSeconds(30)).seed(1).listener(events::add);
    }

    TaskRuntime runtime(Worker<S> worker) {
        return builder().register(WORK, worker).build();
    }

    List<String> of(long id) {
        List<String> seen = new ArrayList<>();
        for (RuntimeEvent e : events) {
            if (e.taskId() != id) continue;
            seen.add(e.kind() + " " + e.from() + "->" + e.state() + " " + e.event() + " attempt " + e.attempt()
                    + (e.errorCode() == null ? "" : " " + e.errorCode()) + (e.duration() == null ? "" : " " + e.duration()));
        }
        return seen;
    }

    @Test
    void aSuccessIsReportedAsAClaimWithItsWaitThenASuccessWithItsRunTime() {
        long id = engine.create(WORK).task().id();
        clock.advance(Duration.ofSeconds(5));
        TaskRuntime rt = runtime(ctx -> {
            clock.advance(Duration.ofSeconds(2));
            return WorkResult.success();
        });
        rt.start();
        executor.runAll();
        assertThat(of(id)).containsExactly(
                "CLAIMED QUEUED->RUNNING START attempt 1 PT5S",
                "SUCCEEDED RUNNING->DONE COMPLETE attempt 1 PT2S");
        RuntimeEvent done = events.get(1);
        assertThat(done.machine()).isEqualTo("work");
        assertThat(done.queue()).isEqualTo("work");
        assertThat(done.at()).isEqualTo(t0.plusSeconds(7));
        assertThat(done.stage()).isNull();
        assertThat(done.kind().tag()).isEqualTo("succeeded");
        rt.halt();
    }

    @Test
    void failuresRetriesAndTimeoutsCarryTheirErrorCodesAndRunTimes() {
        long fatal = engine.create(WORK, TaskSpec.defaults().attribute("do", "fatal")).task().id();
        long flaky = engine.create(WORK, TaskSpec.defaults().attribute("do", "flaky")).task().id();
        long slow = engine.create(WORK, TaskSpec.defaults().attribute("do", "slow")).task().id();
        TaskRuntime rt = runtime(ctx -> {
            String does = ctx.task().attribute("do");
            boolean first = ctx.task().record().attempts() == 1;
            if ("fatal".equals(does)) return WorkResult.fatal("BROKEN", "cannot be done");
            if ("flaky".equals(does) && first) return WorkResult.retryable("BUSY", "try later");
            if ("slow".equals(does) && first) clock.advance(Duration.ofSeconds(70));      // past the timeout, within the grace
            return WorkResult.success();
        });
        rt.start();
        executor.runAll();
        clock.advance(Duration.ofSeconds(20));      // the retries' back-off is over
        executor.runAll();
        assertThat(of(fatal)).containsExactly(
                "CLAIMED QUEUED->RUNNING START attempt 1 PT0S",
                "FAILED RUNNING->FAILED FAIL attempt 1 BROKEN PT0S");
        assertThat(of(flaky)).containsExactly(
                "CLAIMED QUEUED->RUNNING START attempt 1 PT0S",
                "RETRIED RUNNING->QUEUED RETRY attempt 1 BUSY PT0S",
                "CLAIMED QUEUED->RUNNING START attempt 2 PT1M",         // ready after 10 s; the slow task held the only slot
                "SUCCEEDED RUNNING->DONE COMPLETE attempt 2 PT0S");
        assertThat(of(slow)).containsExactly(
                "CLAIMED QUEUED->RUNNING START attempt 1 PT0S",
                "TIMED_OUT RUNNING->QUEUED RETRY attempt 1 TIMEOUT PT1M10S",
                "RETRIED RUNNING->QUEUED RETRY attempt 1 TIMEOUT PT1M10S",
                "CLAIMED QUEUED->RUNNING START attempt 2 PT10S",        // ready 10 s after its timeout, claimed at the next advance
                "SUCCEEDED RUNNING->DONE COMPLETE attempt 2 PT0S");
        rt.halt();
    }

    @Test
    void aRecoveryIsReportedWithTheTimeFromTheLeasesExpiry() {
        long id = engine.create(WORK).task().id();
        store.claim(new ClaimRequest("work", "work", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "dead", t0,
                Duration.ofSeconds(30), 1, 0));
        events.clear();
        TaskRuntime rt = runtime(ctx -> WorkResult.success());
        rt.start();
        executor.runAll();
        clock.advance(Duration.ofSeconds(35));
        executor.runAll();
        assertThat(of(id)).containsExactly(
                "RECOVERED RUNNING->QUEUED RELEASE attempt 1 PT5S",
                "CLAIMED QUEUED->RUNNING START attempt 2 PT0S",
                "SUCCEEDED RUNNING->DONE COMPLETE attempt 2 PT0S");
        rt.halt();
    }

    @Test
    void aRecoveryThatFailsTheTaskCarriesTheErrorItWrote() {
        Machine<S, E> once = Machine.builder("once", S.class, E.class)
                .states(S.QUEUED, S.RUNNING, S.DONE, S.FAILED)
                .initial(S.QUEUED)
                .terminal(S.DONE, S.FAILED)
                .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
                .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
                .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
                .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).maxAttempts(1))
                .build();
        long id = engine.create(once).task().id();
        store.claim(new ClaimRequest("once", "once", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "dead", t0,
                Duration.ofSeconds(30), 1, 0));
        TaskRuntime rt = builder().register(once, ctx -> WorkResult.success()).build();
        rt.start();
        clock.advance(Duration.ofSeconds(32));
        executor.runAll();
        assertThat(of(id)).containsExactly("RECOVERED RUNNING->FAILED FAIL attempt 1 ATTEMPTS_EXHAUSTED PT2S");
        assertThat(rt.metrics().of("once", "once").orElseThrow().lastMinute()).isEqualTo(new LastMinute(0, 0, 0, 0, 0, 1));
        rt.halt();
    }

    @Test
    void aStageEnteredIsReportedWithTheStageAndItsQueue() {
        TaskRuntime rt = builder().registerStage(StagesTest.ETL, "ocr", ctx -> WorkResult.success())
                .registerStage(StagesTest.ETL, "post", ctx -> WorkResult.success()).build();
        rt.start();
        executor.runAll();
        long id = engine.create(StagesTest.ETL).task().id();
        executor.runAll();
        assertThat(of(id)).containsExactly(
                "CLAIMED OCR_PENDING->OCR_RUNNING START_OCR attempt 1 PT0S",
                "STAGE_CHANGED OCR_RUNNING->POST_PENDING OCR_DONE attempt 0",
                "SUCCEEDED OCR_RUNNING->POST_PENDING OCR_DONE attempt 1 PT0S",     // the attempt that ran
                "CLAIMED POST_PENDING->POST_RUNNING START_POST attempt 1 PT0S",
                "SUCCEEDED POST_RUNNING->DONE POST_DONE attempt 1 PT0S");
        RuntimeEvent entered = events.stream().filter(e -> e.kind() == Kind.STAGE_CHANGED).findFirst().orElseThrow();
        assertThat(entered.stage()).isEqualTo("post");
        assertThat(entered.queue()).isEqualTo("etl-post");
        assertThat(events.stream().filter(e -> e.kind() == Kind.SUCCEEDED).map(RuntimeEvent::queue))
                .as("a result is reported on the queue its task was claimed from").containsExactly("etl-ocr", "etl-post");
        rt.halt();
    }

    @Test
    void aGroupResolvedIsReportedOnceWithHowLongItsOwnerWaited() {
        TaskRuntime rt = builder().register(GroupsTest.CHUNK, ctx -> {
            clock.advance(Duration.ofSeconds(3));
            return WorkResult.success();
        }).resolves(GroupsTest.JOB).build();
        rt.start();
        executor.runAll();
        long job = engine.create(GroupsTest.JOB).task().id();
        List<TaskSpec> chunks = List.of(TaskSpec.defaults(), TaskSpec.defaults());
        assertThat(engine.fireWithChildren(GroupsTest.JOB, job, GroupsTest.JobEvent.PROCESS, Command.user("ann"), chunks).isApplied())
                .isTrue();
        executor.runAll();
        clock.advance(Duration.ofSeconds(5));       // polls: the group is resolved already, and not again
        executor.runAll();
        assertThat(of(job)).containsExactly("GROUP_RESOLVED PROCESSING->DONE CHUNKS_DONE attempt 0 PT6S");
        assertThat(events.stream().filter(e -> e.kind() == Kind.GROUP_RESOLVED).findFirst().orElseThrow().machine()).isEqualTo("job");
        assertThat(events.stream().filter(e -> e.kind() == Kind.SUCCEEDED).count()).isEqualTo(2);
        rt.halt();
    }

    @Test
    void aDependentReleasedToRunIsReportedAsItsGroupResolved() {
        TaskRuntime rt = builder().register(STEP, ctx -> WorkResult.success()).build();
        rt.start();
        executor.runAll();
        long upstream = engine.create(STEP).task().id();
        clock.advance(Duration.ofSeconds(1));
        long dependent = engine.create(STEP, TaskSpec.defaults().dependsOn(upstream)).task().id();
        clock.advance(Duration.ofSeconds(2));
        executor.runAll();
        assertThat(of(dependent)).containsExactly(
                "GROUP_RESOLVED QUEUED->QUEUED released attempt 0 PT2S",
                "CLAIMED QUEUED->RUNNING START attempt 1 PT2S",         // ready since its last change: held meanwhile
                "SUCCEEDED RUNNING->DONE COMPLETE attempt 1 PT0S");
        rt.halt();
    }

    @Test
    void aListenerThatThrowsHarmsNeitherTheWorkNorTheOtherListeners() {
        RuntimeListener broken = e -> {
            throw new IllegalStateException("listener broken");
        };
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).listener(broken).listener(events::add)
                .register(WORK, ctx -> WorkResult.success()).build();
        rt.start();
        long a = engine.create(WORK).task().id();
        long b = engine.create(WORK).task().id();
        executor.runAll();
        assertThat(store.find(a).orElseThrow().state()).isEqualTo("DONE");
        assertThat(store.find(b).orElseThrow().state()).isEqualTo("DONE");
        assertThat(events).extracting(RuntimeEvent::kind).containsExactly(Kind.CLAIMED, Kind.SUCCEEDED, Kind.CLAIMED, Kind.SUCCEEDED);
        rt.halt();
    }

    @Test
    void aResultWhoseWriteIsRefusedIsNotReported() {
        long[] id = {0};
        TaskRuntime rt = runtime(ctx -> {
            engine.fire(WORK, id[0], E.CANCEL, Command.user("ann"));        // an operator ends the task meanwhile
            return WorkResult.success();
        });
        id[0] = engine.create(WORK).task().id();
        rt.start();
        executor.runAll();
        assertThat(store.find(id[0]).orElseThrow().state()).isEqualTo("CANCELLED");
        assertThat(of(id[0])).containsExactly("CLAIMED QUEUED->RUNNING START attempt 1 PT0S");
        rt.halt();
    }
}
