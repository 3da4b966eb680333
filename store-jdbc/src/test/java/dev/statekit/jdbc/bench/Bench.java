package dev.statekit.jdbc.bench;

import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.Command;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.jdbc.TestPool;
import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the benchmarks and their second processes share: the machine, the queue, the stores and
 * runtimes.
 */
public final class Bench {
    /** The states of the no-op machine. */
    public enum State { QUEUED, RUNNING, DONE, FAILED }

    /** The events of the no-op machine. */
    public enum Event { START, COMPLETE, FAIL, RELEASE }

    /** The queue of the no-op tasks. */
    public static final String QUEUE = "noop";

    /**
     * The no-op machine: claimed from QUEUED into RUNNING, completed into DONE, and put back into
     * QUEUED when its lease is lost.
     */
    public static final Machine<State, Event> NOOP = Machine.builder("bench-noop", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RELEASE, State.QUEUED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL).release(Event.RELEASE))
            .build();

    /** The queue of the group benchmarks' children. */
    static final String PIECES = "pieces";

    /** A child: the no-op machine's table, with its succeeded and failed states declared. */
    static final Machine<State, Event> PIECE = Machine.builder("bench-piece", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .succeeded(State.DONE)
            .failed(State.FAILED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RELEASE, State.QUEUED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL).release(Event.RELEASE))
            .build();

    enum BatchState { OPEN, SETTLED, FAILED }

    enum BatchEvent { PIECES_DONE, PIECES_FAILED }

    /** A parent of pieces: settled by the group resolver once they have all succeeded. */
    static final Machine<BatchState, BatchEvent> BATCH = Machine.builder("bench-batch", BatchState.class, BatchEvent.class)
            .initial(BatchState.OPEN)
            .terminal(BatchState.SETTLED, BatchState.FAILED)
            .succeeded(BatchState.SETTLED)
            .failed(BatchState.FAILED)
            .transition(BatchState.OPEN, BatchEvent.PIECES_DONE, BatchState.SETTLED, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.PIECES_FAILED, BatchState.FAILED, SYSTEM)
            .children(PIECE, c -> c.whenSucceeded(BatchEvent.PIECES_DONE).whenFailed(BatchEvent.PIECES_FAILED))
            .build();

    private Bench() {}

    /** A database to measure: its JDBC URL and credentials. */
    record Db(String name, Dialect dialect, String url, String user, String password) {
        TestPool pool() {
            return BenchPool.open(url, user, password);
        }
    }

    /** Returns a store on {@code prefix}, creating its tables when asked. */
    static JdbcStore store(TestPool pool, Dialect dialect, String prefix, boolean create) {
        return JdbcStore.builder(pool).dialect(dialect).tablePrefix(prefix).createSchemaIfMissing(create).build();
    }

    static TransitionEngine engine(JdbcStore store) {
        return TransitionEngine.builder().store(store).clock(Clock.system()).build();
    }

    /** A runtime on threads of its own: closing it stops the runtime and waits for every thread to end. */
    record Runner(TaskRuntime runtime, TransitionEngine engine, ExecutorService threads) {
        /** Resumes {@code queue} through the operations of this runner's engine, which wakes its runtime. */
        void resume(String queue) {
            TaskOperations.of(engine).resume(queue, Command.system());
        }

        long completed() {
            return runtime.completedCount();
        }

        void close() throws InterruptedException {
            runtime.close();
            threads.shutdown();
            if (!threads.awaitTermination(1, TimeUnit.MINUTES)) throw new IllegalStateException("runtime threads still running");
        }
    }

    static Runner runtime(TransitionEngine engine, String owner, int workers, int batch, Duration poll, Worker<State> worker) {
        return runtime(engine, owner, workers, batch, poll, worker, QueueOptions.defaults());
    }

    /** A runtime of {@code workers} workers serving {@link #QUEUE} with {@code options} (a rate limit, say). */
    static Runner runtime(TransitionEngine engine, String owner, int workers, int batch, Duration poll, Worker<State> worker,
                          QueueOptions options) {
        AtomicInteger n = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(workers + 1, r -> {
            Thread t = new Thread(r, "bench-" + owner + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        return new Runner(TaskRuntime.builder(engine).owner(owner).workers(workers).batchSize(batch).pollInterval(poll)
                .executor(threads).register(NOOP, QUEUE, worker, options).build(), engine, threads);
    }

    /**
     * A runtime of the group benchmarks: with {@code serve}, no-op workers for the pieces; with
     * {@code resolve}, resolution passes for the batches. A runtime that serves no pieces registers
     * the no-op machine on a queue nothing is put on (a runtime registers at least one machine).
     */
    static Runner groupRuntime(TransitionEngine engine, String owner, int workers, int batch, Duration poll, boolean serve,
                               boolean resolve) {
        AtomicInteger n = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(workers + 1, r -> {
            Thread t = new Thread(r, "bench-" + owner + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(owner).workers(workers).batchSize(batch).pollInterval(poll)
                .executor(threads);
        if (serve) b.register(PIECE, PIECES, ctx -> WorkResult.success(), QueueOptions.defaults());
        else b.register(NOOP, "unused", ctx -> WorkResult.success(), QueueOptions.defaults());
        if (resolve) b.resolves(BATCH);
        return new Runner(b.build(), engine, threads);
    }

    static void execute(TestPool pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static long count(TestPool pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Drops every table and sequence of {@code prefix}. */
    static void drop(TestPool pool, String prefix) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String table : new String[] {"tasks", "history", "queues", "schema_version", "groups",
                    "group_counts", "dependencies", "marks", "archived_tasks", "archived_history", "rate_starts", "rate_holds", "schedules", "processes",
                    "wakes"}) {
                s.execute("drop table if exists " + prefix + table);
            }
            for (String sequence : new String[] {"fifo_seq", "front_seq", "fencing_seq", "check_seq"}) {
                s.execute("drop sequence if exists " + prefix + sequence);
            }
        }
    }

    /** Microseconds since the epoch of an instant of the system clock: comparable between processes of one machine. */
    static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }
}
