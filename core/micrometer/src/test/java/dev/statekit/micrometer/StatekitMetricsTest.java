package dev.statekit.micrometer;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.memory.InMemoryStore;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Micrometer binding on the in-memory store under a manual clock and executor: attempts timed
 * by outcome with their workers' run times, claims with their waits; gauges of
 * the store's counts read at most once per refresh interval, a pair that disappears reading 0.
 */
class StatekitMetricsTest {
    enum S { QUEUED, RUNNING, DONE, FAILED }

    enum E { START, COMPLETE, FAIL }

    static final Machine<S, E> JOB = Machine.builder("job", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).timeout(Duration.ofMinutes(1))
                    .retry(RetryPolicy.exponential(1, Duration.ofSeconds(10), Duration.ofSeconds(10))))
            .build();

    final Instant t0 = Instant.parse("2031-04-05T13:30:00Z");
    final ManualClock clock = new ManualClock(t0);
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final ManualExecutor executor = new ManualExecutor();
    final MockClock meterClock = new MockClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, meterClock);
    final StatekitMetrics metrics = new StatekitMetrics(Duration.ofSeconds(5));

    TaskRuntime runtime() {
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).seed(1).listener(metrics)
                .register(JOB, ctx -> {
                    String does = ctx.task().attribute("do");
                    clock.advance(Duration.ofSeconds(2));
                    if ("fatal".equals(does)) return WorkResult.fatal("BROKEN", "cannot be done");
                    if ("flaky".equals(does) && ctx.task().record().retries() == 0) return WorkResult.retryable("BUSY", "later");
                                return WorkResult.success();
                }).build();
        metrics.observe(rt).bindTo(registry);
        return rt;
    }

    long create(String does) {
        return engine.create(JOB, TaskSpec.defaults().attribute("do", does)).task().id();
    }

    Timer attempts(String outcome) {
        return registry.get("statekit.task.attempts").tags("machine", "job", "queue", "job", "outcome", outcome).timer();
    }

    double gauge(String name, String... tags) {
        return registry.get(name).tags("machine", "job", "queue", "job").tags(tags).gauge().value();
    }

    @Test
    void attemptsAreTimedByOutcomeAndClaimsByTheirWait() {
        create("ok");
        create("ok");
        create("fatal");
        create("flaky");
        clock.advance(Duration.ofSeconds(3));
        TaskRuntime rt = runtime();
        rt.start();
        executor.runAll();

        assertThat(attempts("succeeded").count()).isEqualTo(2);
        assertThat(attempts("succeeded").totalTime(TimeUnit.SECONDS)).isEqualTo(4.0);
        assertThat(attempts("failed").count()).isEqualTo(1);
        assertThat(attempts("retried").count()).as("the flaky one, to run again after its back-off").isEqualTo(1);
        assertThat(registry.find("statekit.task.timeouts").counter()).isNull();
        Timer wait = registry.get("statekit.task.wait").tags("machine", "job", "queue", "job").timer();
        assertThat(wait.count()).isEqualTo(4);
        assertThat(wait.max(TimeUnit.SECONDS)).as("the last claimed waited 3 s, then 2 s for each of the three before it").isEqualTo(9.0);

        clock.advance(Duration.ofSeconds(10));
        executor.runAll();
        assertThat(attempts("succeeded").count()).as("the flaky one's second attempt").isEqualTo(3);
        assertThat(wait.count()).isEqualTo(5);
        rt.halt();
    }

    @Test
    void gaugesShowTheStoresCountsReadAtMostOncePerRefresh() {
        create("ok");
        create("ok");
        engine.create(JOB, TaskSpec.defaults().attribute("do", "ok").notBefore(t0.plus(Duration.ofHours(1))));
        TaskRuntime rt = runtime();
        TaskOperations.of(engine).pause("job", Command.system());
        rt.start();
        executor.runAll();
        clock.advance(Duration.ofSeconds(10));
        meterClock.add(Duration.ofSeconds(5));      // the snapshot taken at binding is due again

        assertThat(gauge("statekit.tasks", "state", "QUEUED")).isEqualTo(3.0);
        assertThat(gauge("statekit.tasks.waiting")).isEqualTo(3.0);
        assertThat(gauge("statekit.tasks.running")).isZero();
        assertThat(gauge("statekit.queue.paused")).isEqualTo(1.0);
        assertThat(registry.get("statekit.tasks.oldest.waiting").tags("machine", "job", "queue", "job").timeGauge().value(TimeUnit.SECONDS))
                .as("the two created at t0, kept back by the pause").isEqualTo(10.0);

        TaskOperations.of(engine).resume("job", Command.system());
        executor.runAll();
        assertThat(gauge("statekit.tasks.waiting")).as("read less than the refresh interval ago").isEqualTo(3.0);
        meterClock.add(Duration.ofSeconds(5));
        assertThat(gauge("statekit.tasks.waiting")).as("the one not yet due").isEqualTo(1.0);
        assertThat(gauge("statekit.tasks", "state", "DONE")).isEqualTo(2.0);
        assertThat(gauge("statekit.queue.paused")).isZero();

        assertThat(store.purge("job", java.util.List.of("DONE"), clock.now().plusSeconds(1), 100)).isEqualTo(2);
        meterClock.add(Duration.ofSeconds(5));
        assertThat(gauge("statekit.tasks", "state", "DONE")).as("a state no task is in any more").isZero();
        rt.halt();
    }
}
