package dev.statekit.core.bench;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.store.memory.InMemoryStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Throughput of the five-state chunk cycle pending → processing → retrying → processing → error
 * → pending: (a) pure table decisions, (b) full {@code fire} through the engine with the
 * in-memory store, on 1 and 2 threads. Each figure is the median of several timed rounds after
 * a warm-up. Run with {@code gradle :core:bench}.
 */
public final class TransitionBenchmark {
    enum State { PENDING, PROCESSING, RETRYING, DONE, ERROR }

    enum Event { START, SUCCEED, FAIL, RETRYABLE_ERROR, BACKOFF_DONE, RETRY_FAILED, RELEASE }

    static final Machine<State, Event> CHUNK = Machine.builder("bench-chunk", State.class, Event.class)
            .initial(State.PENDING)
            .terminal(State.DONE)
            .transition(State.PENDING, Event.START, State.PROCESSING, SYSTEM)
            .transition(State.PROCESSING, Event.SUCCEED, State.DONE, SYSTEM)
            .transition(State.PROCESSING, Event.FAIL, State.ERROR, SYSTEM)
            .transition(State.PROCESSING, Event.RETRYABLE_ERROR, State.RETRYING, SYSTEM)
            .transition(State.RETRYING, Event.BACKOFF_DONE, State.PROCESSING, SYSTEM)
            .transition(State.RETRYING, Event.SUCCEED, State.DONE, SYSTEM)
            .transition(State.RETRYING, Event.FAIL, State.ERROR, SYSTEM)
            .transition(State.ERROR, Event.RETRY_FAILED, State.PENDING, SYSTEM)
            .transition(State.PROCESSING, Event.RELEASE, State.PENDING, SYSTEM)
            .transition(State.RETRYING, Event.RELEASE, State.PENDING, SYSTEM)
            .build();

    /** The cycle: PENDING -START-> PROCESSING -RETRYABLE_ERROR-> RETRYING -BACKOFF_DONE-> PROCESSING -FAIL-> ERROR -RETRY_FAILED-> PENDING. */
    static final Event[] CYCLE = {Event.START, Event.RETRYABLE_ERROR, Event.BACKOFF_DONE, Event.FAIL, Event.RETRY_FAILED};

    private static final int ROUNDS = 5;
    private static final long ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    static volatile Object sink = State.PENDING;

    private TransitionBenchmark() {}

    public static void main(String[] args) throws Exception {
        System.out.println("statekit transition benchmark: chunk cycle of 5 transitions, median of " + ROUNDS
                + " rounds of " + TimeUnit.NANOSECONDS.toMillis(ROUND_NANOS) + " ms after warm-up; "
                + Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("java.vm.name")
                + " " + System.getProperty("java.version")
                + ", JVM options " + java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        for (int threads : new int[] {1, 2}) {
            report("(a) table decisions", threads, measure(threads, TransitionBenchmark::decisions));
        }
        for (int threads : new int[] {1, 2}) {
            report("(b) engine fire, in-memory store, 1,000 tasks per thread", threads, measureFire(threads, false));
        }
        report("(b') engine fire, in-memory store, 2 threads on ONE task (contended CAS)", 2, measureFire(2, true));
    }

    private static void report(String what, int threads, double perSecond) {
        System.out.printf(Locale.ROOT, "%-72s threads=%d  %,14.0f transitions/s  (%.2f M/s)%n",
                what, threads, perSecond, perSecond / 1e6);
    }

    /** Pure table decisions for ROUND_NANOS; returns the count (and feeds a sink via the state). */
    private static long decisions(long deadline) {
        State state = State.PENDING;
        long n = 0;
        int i = 0;
        while (true) {
            for (int k = 0; k < 10_000; k++) {
                State next = CHUNK.target(state, CYCLE[i]);
                if (next == null) throw new AssertionError("table refused " + CYCLE[i] + " in " + state);
                state = next;
                if (++i == CYCLE.length) i = 0;
            }
            n += 10_000;
            if (System.nanoTime() >= deadline) {
                sink = state;      // keeps the loop's result observable
                return n;
            }
        }
    }

    interface Work {
        long run(long deadline) throws Exception;
    }

    private static double measure(int threads, Work work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            runRound(pool, threads, work, 2 * ROUND_NANOS);   // warm-up
            List<Double> rates = new ArrayList<>();
            for (int r = 0; r < ROUNDS; r++) rates.add(runRound(pool, threads, work, ROUND_NANOS));
            rates.sort(null);
            return rates.get(rates.size() / 2);
        } finally {
            pool.shutdownNow();
        }
    }

    private static double runRound(ExecutorService pool, int threads, Work work, long nanos) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        long[] startedAt = new long[1];
        List<Future<Long>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                start.await();
                return work.run(startedAt[0] + nanos);
            }));
        }
        startedAt[0] = System.nanoTime();
        start.await();
        long total = 0;
        for (Future<Long> f : results) total += f.get();
        long elapsed = System.nanoTime() - startedAt[0];
        return total * 1e9 / elapsed;
    }

    /** Tasks per thread: each thread fires at its tasks in turn, so histories stay of realistic length. */
    private static final int TASKS_PER_THREAD = 1_000;

    private static double measureFire(int threads, boolean oneTask) throws Exception {
        List<Double> rates = new ArrayList<>();
        for (int r = -1; r < ROUNDS; r++) {          // round -1 is the warm-up
            InMemoryStore store = new InMemoryStore();
            TransitionEngine engine = TransitionEngine.builder().store(store).clock(Clock.system()).build();
            long shared = engine.create(CHUNK).task().id();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            double rate;
            try {
                rate = runRound(pool, threads, deadline -> {
                    long[] tasks = new long[oneTask ? 1 : TASKS_PER_THREAD];
                    for (int t = 0; t < tasks.length; t++) tasks[t] = oneTask ? shared : engine.create(CHUNK).task().id();
                    return fireLoop(engine, tasks, deadline);
                }, r < 0 ? 2 * ROUND_NANOS : ROUND_NANOS);
            } finally {
                pool.shutdownNow();
            }
            if (r >= 0) rates.add(rate);
            System.gc();
        }
        rates.sort(null);
        return rates.get(rates.size() / 2);
    }

    private static long fireLoop(TransitionEngine engine, long[] tasks, long deadline) {
        long n = 0;
        int[] positions = new int[tasks.length];
        for (int t = 0; t < tasks.length; t++) positions[t] = position(engine.find(CHUNK, tasks[t]).orElseThrow().version());
        int t = 0;
        while (true) {
            for (int k = 0; k < 1_000; k++) {
                Outcome<State> o = engine.fire(CHUNK, tasks[t], CYCLE[positions[t]]);
                if (o.isApplied()) {
                    n++;
                    if (++positions[t] == CYCLE.length) positions[t] = 0;
                } else {
                    // another thread moved the shared task on: continue from where it is now
                    positions[t] = position(engine.find(CHUNK, tasks[t]).orElseThrow().version());
                }
                if (++t == tasks.length) t = 0;
            }
            if (System.nanoTime() >= deadline) return n;
        }
    }

    /** The cycle's five transitions repeat, so a task at version v is at position v mod 5. */
    private static int position(long version) {
        return (int) (version % CYCLE.length);
    }
}
