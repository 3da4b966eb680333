package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.StoreSpy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The shared ground of the tests of the runtime's parts: an in-memory store (behind a
 * {@link StoreSpy}), a manual clock, a manual executor, an engine over them, and the
 * {@link RuntimeContext} a part is built on. Settings a test may change before it asks for a
 * context: {@link #slots}, {@link #batchSize} (0: adaptive batches), {@link #ownThreads}, {@link #forceCancel}.
 */
public final class RuntimeParts {
    /** A fresh harness. */
    public RuntimeParts() {}

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    static final Duration POLL = Duration.ofSeconds(1);
    static final Duration GRACE = Duration.ofSeconds(10);

    /** A machine that runs without blocked state, release or waits, and fails a task whose lease expired. */
    static final Machine<Jobs.State, Jobs.Event> PLAIN = Machine.builder("plain", Jobs.State.class, Jobs.Event.class)
            .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED)
            .initial(Jobs.State.QUEUED)
            .terminal(Jobs.State.DONE, Jobs.State.FAILED)
            .transition(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING, SYSTEM)
            .transition(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE, SYSTEM)
            .transition(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED, SYSTEM)
            .run(r -> r.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL).recoverByFailing())
            .build();

    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final StoreSpy spy = new StoreSpy();
    final InMemoryStore store = spy.base;
    public final TransitionEngine engine = TransitionEngine.builder().store(spy.store).clock(clock).build();
    int slots = 1;
    int batchSize = 1;
    boolean ownThreads;
    boolean forceCancel = true;

    /** Returns a context of a runtime named {@code owner} serving {@code registrations}, not yet started. */
    RuntimeContext context(String owner, Registration<?, ?>... registrations) {
        return new RuntimeContext(engine, owner, executor, ownThreads, slots, batchSize, LEASE, HEARTBEAT, POLL, GRACE, forceCancel,
                ErrorClassifier.defaults(), new Registrations(List.of(registrations)), 7);
    }

    /** Returns a context as {@link #context} does, with its life cycle started. */
    RuntimeContext started(String owner, Registration<?, ?>... registrations) {
        RuntimeContext ctx = context(owner, registrations);
        ctx.life.start(owner);
        return ctx;
    }

    static <S extends Enum<S>, E extends Enum<E>> Registration<S, E> registration(Machine<S, E> machine, String queue,
                                                                                 Worker<S> worker) {
        return new Registration<>(machine, queue, worker, QueueOptions.defaults());
    }

    static ResultWriter writer(RuntimeContext ctx, Consumer<Instant> wakeAt) {
        return new ResultWriter(ctx.kernel, ctx.owner, wakeAt, ctx.events, ctx.store::cancelRequested, ctx::nextRandom,
                ResultWriter.holdsIn(ctx.store));
    }

    /** Stands for a runtime's own listener on the engine: a dispatcher does not announce its claims to it. */
    static final dev.statekit.core.spi.TransitionListener OWN = (machine, task, entry) -> { };

    /** Returns a dispatcher of {@code ctx} with the runtime's own writer, which drops wake-ups. */
    static Dispatcher dispatcher(RuntimeContext ctx, Runnable housekeeping, Runnable onIdle) {
        return new Dispatcher(ctx, housekeeping, new GroupResolution(ctx, List.of()), new Preconditions(ctx), writer(ctx, at -> { }), onIdle, OWN,
                (run, cause) -> TaskRuntime.giveBack(ctx, run, cause));
    }

    /** Claims a batch of {@code r} as a worker slot of {@code ctx} would; the runs are registered as running. */
    static <S extends Enum<S>, E extends Enum<E>> List<Run<S, E>> claim(RuntimeContext ctx, Registration<S, E> r) {
        return dispatcher(ctx, () -> { }, () -> { }).claimBatch(r, ctx.clock.now(), ctx.batchSize);
    }

    <S extends Enum<S>, E extends Enum<E>> long enqueue(Machine<S, E> machine, String queue) {
        return enqueue(machine, queue, 0);
    }

    <S extends Enum<S>, E extends Enum<E>> long enqueue(Machine<S, E> machine, String queue, int priority) {
        return engine.create(machine, TaskSpec.defaults().queue(queue).priority(priority)).task().id();
    }

    public TaskRecord task(long id) {
        return store.find(id).orElseThrow();
    }

    public List<String> events(long id) {
        List<String> events = new ArrayList<>();
        for (HistoryEntry e : store.history(id)) events.add(e.event());
        return events;
    }

    HistoryEntry last(long id) {
        List<HistoryEntry> history = store.history(id);
        return history.get(history.size() - 1);
    }
}
