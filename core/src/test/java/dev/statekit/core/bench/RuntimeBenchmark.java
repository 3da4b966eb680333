package dev.statekit.core.bench;

import dev.statekit.core.ops.TaskOperations;
import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput and latency of the runtime with the in-memory store: (1) 100,000 no-op tasks
 * enqueued on a paused queue, then run by 2 worker threads until all are done, three untimed rounds
 * and three timed ones; (2) enqueue →
 * worker start latency of single tasks on an idle runtime, p50/p99 over many samples. For (1) it
 * also prints the process CPU time per task. Run with
 * {@code gradle -q :core:benchRuntime}.
 */
public final class RuntimeBenchmark {
    enum State { QUEUED, RUNNING, DONE, FAILED }

    enum Event { START, COMPLETE, FAIL, RELEASE }

    static final Machine<State, Event> NOOP = Machine.builder("bench-noop", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RELEASE, State.QUEUED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL).release(Event.RELEASE))
            .build();

    private RuntimeBenchmark() {}

    public static void main(String[] args) throws Exception {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        System.out.println("statekit runtime benchmark, in-memory store, " + Runtime.getRuntime().availableProcessors()
                + " cores, " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + ", JVM options " + java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        // warm-up: rounds of the same size until the compiler is done with the runtime's loops (with a
        // single round of a fifth, the first timed round still shared the cores with the compiler)
        for (int round = 0; round < 3; round++) throughput(tasks, false);
        for (int round = 0; round < 3; round++) throughput(tasks, true);
        latency(2_000, false);                                  // warm-up
        latency(10_000, true);
    }

    private static void throughput(int n, boolean print) throws Exception {
        InMemoryStore store = new InMemoryStore();
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(Clock.system()).build();
        CountDownLatch done = new CountDownLatch(n);
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("bench").workers(2)
                .register(NOOP, "noop", ctx -> {
                    done.countDown();
                    return WorkResult.success();
                }, QueueOptions.defaults())
                .build();
        store.pauseQueue("noop", "loading");
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) engine.create(NOOP, TaskSpec.defaults().queue("noop"));
        long t1 = System.nanoTime();
        long c1 = cpuNanos();
        runtime.start();
        TaskOperations.of(engine).resume("noop", Command.system());
        if (!done.await(5, TimeUnit.MINUTES)) throw new IllegalStateException("tasks did not finish: " + done.getCount() + " left");
        // the last worker counted down before its result was written: wait for the writes too
        while (runtime.completedCount() < n) Thread.onSpinWait();
        long t2 = System.nanoTime();
        long c2 = cpuNanos();
        runtime.close();
        if (print) {
            System.out.printf(Locale.ROOT, "throughput: %,d no-op tasks, 2 worker threads: enqueue %,.0f tasks/s; run (claim, start, complete with history) %,.0f tasks/s%n",
                    n, n * 1e9 / (t1 - t0), n * 1e9 / (t2 - t1));
            int cores = Runtime.getRuntime().availableProcessors();
            System.out.printf(Locale.ROOT, "  the run used %.2f us of process CPU time per task (%.0f%% of %d cores)%n",
                    (c2 - c1) / 1e3 / n, (c2 - c1) * 100.0 / (t2 - t1) / cores, cores);
        }
    }

    /** The CPU time of the whole process (workers, collector, compiler): on a shared machine a steadier figure than the wall clock. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void latency(int samples, boolean print) throws Exception {
        InMemoryStore store = new InMemoryStore();
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(Clock.system()).build();
        AtomicLong startedAt = new AtomicLong();
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("bench").workers(2).pollInterval(Duration.ofSeconds(10))
                .register(NOOP, "noop", ctx -> {
                    startedAt.set(System.nanoTime());
                    return WorkResult.success();
                }, QueueOptions.defaults())
                .build();
        runtime.start();
        long[] nanos = new long[samples];
        for (int i = 0; i < samples; i++) {
            long before = runtime.completedCount();
            startedAt.set(0);
            long t0 = System.nanoTime();
            engine.create(NOOP, TaskSpec.defaults().queue("noop"));
            long s;
            while ((s = startedAt.get()) == 0) Thread.onSpinWait();
            nanos[i] = s - t0;
            while (runtime.completedCount() == before) Thread.onSpinWait();   // idle again before the next sample
        }
        runtime.close();
        Arrays.sort(nanos);
        if (print) {
            System.out.printf(Locale.ROOT, "latency: enqueue -> worker start, %,d single tasks on an idle runtime: p50 %.3f ms, p99 %.3f ms, max %.3f ms%n",
                    samples, nanos[samples / 2] / 1e6, nanos[(int) (samples * 0.99)] / 1e6, nanos[samples - 1] / 1e6);
        }
    }
}
