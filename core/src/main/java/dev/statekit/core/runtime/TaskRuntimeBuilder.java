package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;

import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.core.spi.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/** Builds a {@link TaskRuntime}. Not thread-safe. */
public final class TaskRuntimeBuilder {
    final TransitionEngine engine;
    String owner = "runtime-" + Long.toHexString(Double.doubleToLongBits(Math.random())).substring(0, 8);
    @Nullable Executor executor;
    int workers = Math.max(2, java.lang.Runtime.getRuntime().availableProcessors());
    int batchSize;      // 0: adaptive
    Duration leaseDuration = Duration.ofSeconds(30);
    @Nullable Duration heartbeat;
    Duration pollInterval = Duration.ofSeconds(1);
    Duration cancelGrace = Duration.ofSeconds(30);
    boolean forceCancel = true;
    boolean soleOwner;
    ErrorClassifier classifier = ErrorClassifier.defaults();
    long seed = System.identityHashCode(this) * 0x9E3779B97F4A7C15L;
    final List<Registration<?, ?>> registrations = new ArrayList<>();
    final List<Machine<?, ?>> resolves = new ArrayList<>();
    final List<RuntimeListener> listeners = new ArrayList<>();
    final List<RetentionPasses.Rule> retained = new ArrayList<>();
    final List<SchedulePasses.Declared> schedules = new ArrayList<>();
    int retentionBatch = TaskRuntime.DEFAULT_RETENTION_BATCH;
    Duration retentionInterval = TaskRuntime.DEFAULT_RETENTION_INTERVAL;
    @Nullable Duration processGoneAfter;
    Duration processRetention = TaskRuntime.DEFAULT_PROCESS_RETENTION;

    TaskRuntimeBuilder(TransitionEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * Sets the lease owner name (default: random). A runtime restarted under the same owner
     * recovers the tasks its predecessor held at once instead of waiting for their leases.
     */
    public TaskRuntimeBuilder owner(String name) {
        Objects.requireNonNull(name, "owner");
        if (name.isBlank()) throw new IllegalArgumentException("owner must not be blank");
        this.owner = name;
        return this;
    }

    /**
     * Sets the executor that runs workers and dispatch rounds (default: a fixed pool of
     * {@code workers + 1} platform daemon threads, one more when a machine is {@link #retain retained};
     * pass a virtual-thread executor to use virtual threads, or a
     * {@link dev.statekit.core.spi.ManualExecutor} in tests).
     */
    public TaskRuntimeBuilder executor(Executor value) {
        this.executor = Objects.requireNonNull(value, "executor");
        return this;
    }

    /** Sets how many tasks this runtime runs at once (default: the number of cores, at least 2). */
    public TaskRuntimeBuilder workers(int count) {
        if (count < 1) throw new IllegalArgumentException("workers must be >= 1, was " + count);
        this.workers = count;
        return this;
    }

    /**
     * Sets how many tasks a worker slot claims at once, runs one after the other, and whose
     * results it writes together. Larger batches cut store round trips for short tasks (a JDBC
     * store writes a batch's results in one transaction) at the price of holding the batch's
     * leases while its first tasks run; queues with a concurrency limit still never exceed it.
     *
     * <p>Default: adaptive. A slot claims one task, doubles its claim (up to 256) after a full
     * batch that ran within 1 ms on the clock, and halves it after one that took longer: short
     * tasks run in batches, long ones one at a time. Set a size to claim exactly that many
     * ({@code batchSize(1)}: one task at a time, always).
     */
    public TaskRuntimeBuilder batchSize(int size) {
        if (size < 1 || size > 1000) throw new IllegalArgumentException("batch size must be within 1..1000, was " + size);
        this.batchSize = size;
        return this;
    }

    /** Sets the lease duration (default 30 s); leases are renewed every third of it unless set otherwise. */
    public TaskRuntimeBuilder leaseDuration(Duration value) {
        Objects.requireNonNull(value, "leaseDuration");
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("lease must be positive, was " + value);
        this.leaseDuration = value;
        return this;
    }

    /** Sets the heartbeat (lease renewal) interval; must be shorter than the lease. */
    public TaskRuntimeBuilder heartbeat(Duration value) {
        Objects.requireNonNull(value, "heartbeat");
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("heartbeat must be positive, was " + value);
        this.heartbeat = value;
        return this;
    }

    /** Sets how often the store is polled for work made runnable elsewhere and for expired leases (default 1 s). */
    public TaskRuntimeBuilder pollInterval(Duration value) {
        Objects.requireNonNull(value, "pollInterval");
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("poll interval must be positive, was " + value);
        this.pollInterval = value;
        return this;
    }

    /** Sets how long a cooperative cancellation may take before the policy decides (default 30 s). */
    public TaskRuntimeBuilder cancelGrace(Duration value) {
        this.cancelGrace = Objects.requireNonNull(value, "cancelGrace");
        return this;
    }

    /**
     * Sets what happens to a running task whose worker has not stopped within the cancel grace
     * period: {@code true} (the default) cancels it anyway and fences the worker (for work that
     * can be abandoned safely); {@code false} lets it run to its end, where the cancellation is
     * applied (for work that must not be cut, such as a compression that would leave a corrupt file).
     */
    public TaskRuntimeBuilder forceCancelAfterGrace(boolean force) {
        this.forceCancel = force;
        return this;
    }

    /**
     * Declares that this runtime is the only process that uses its store (an embedded H2 file that
     * one process opens): at {@link TaskRuntime#start()} every lease found on a task of a registered
     * machine is dead, whoever held it, and is recovered at once by the machine's recovery policy
     * instead of after its expiry. Default {@code false}: at start the runtime recovers only the
     * leases of its own {@link #owner(String) owner} name (held before a restart), and other owners'
     * leases when they expire. Never set it on a store that another process shares: its running
     * tasks would be taken from it.
     */
    public TaskRuntimeBuilder soleOwner(boolean sole) {
        this.soleOwner = sole;
        return this;
    }

    /** Sets the classifier of worker exceptions (default {@link ErrorClassifier#defaults()}). */
    public TaskRuntimeBuilder classifier(ErrorClassifier value) {
        this.classifier = Objects.requireNonNull(value, "classifier");
        return this;
    }

    /** Sets the seed of the retry jitter, for repeatable simulations. */
    public TaskRuntimeBuilder seed(long value) {
        this.seed = value;
        return this;
    }

    /**
     * Adds a listener told of each claim, result, recovery, stage entered and group resolved of
     * this runtime, with durations, after the change was written ({@link RuntimeEvent}); several
     * may be added, and are called in the order added. Default: none, and then the runtime
     * makes no event at all (the last minute's counts of {@link TaskRuntime#metrics()} are kept anyway).
     */
    public TaskRuntimeBuilder listener(RuntimeListener value) {
        listeners.add(Objects.requireNonNull(value, "listener"));
        return this;
    }

    /**
     * Has the runtime resolve the groups owned by tasks of {@code machines} (parents whose
     * children end, dependents whose dependencies end) although it runs no worker for them.
     * Machines registered with a worker are resolved without this.
     */
    public TaskRuntimeBuilder resolves(Machine<?, ?>... machines) {
        for (Machine<?, ?> m : machines) resolves.add(Objects.requireNonNull(m, "machine"));
        return this;
    }

    /** Serves {@code machine}'s tasks on the queue named after the machine with {@code worker}. */
    public <S extends Enum<S>, E extends Enum<E>> TaskRuntimeBuilder register(Machine<S, E> machine, Worker<S> worker) {
        return register(machine, machine.name(), worker, QueueOptions.defaults());
    }

    /**
     * Serves {@code machine}'s tasks on {@code queue} with {@code worker}.
     *
     * @throws IllegalArgumentException if the machine declares no run policy, or a precondition is given for a machine without a blocked state
     */
    public <S extends Enum<S>, E extends Enum<E>> TaskRuntimeBuilder register(Machine<S, E> machine, String queue, Worker<S> worker,
                                                                  QueueOptions options) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(worker, "worker");
        Objects.requireNonNull(options, "options");
        return add(new Registration<>(machine, queue, worker, options));
    }

    /**
     * Serves one stage of {@code machine} with {@code worker}, on the stage's queue (its
     * {@link RunPolicy#queue()}, else the machine's name).
     *
     * @throws IllegalArgumentException if the machine declares no such stage
     */
    public <S extends Enum<S>, E extends Enum<E>> TaskRuntimeBuilder registerStage(Machine<S, E> machine, String stage, Worker<S> worker) {
        return registerStage(machine, stage, worker, QueueOptions.defaults());
    }

    /** Serves one stage of {@code machine} with {@code worker} and queue options, on the stage's queue. */
    public <S extends Enum<S>, E extends Enum<E>> TaskRuntimeBuilder registerStage(Machine<S, E> machine, String stage, Worker<S> worker,
                                                                       QueueOptions options) {
        Objects.requireNonNull(machine, "machine");
        RunPolicy<S, E> policy = machine.stages().get(Objects.requireNonNull(stage, "stage"));
        if (policy == null) {
            throw new IllegalArgumentException("machine " + machine.name() + " declares no stage " + stage + "; its stages: " + machine.stages().keySet());
        }
        String queue = policy.queue() != null ? policy.queue() : machine.name();
        return add(new Registration<>(machine, policy, queue, Objects.requireNonNull(worker, "worker"), Objects.requireNonNull(options, "options")));
    }

    private TaskRuntimeBuilder add(Registration<?, ?> registration) {
        for (Registration<?, ?> r : registrations) {
            if (r.machine.name().equals(registration.machine.name()) && r.queue.equals(registration.queue)) {
                throw new IllegalArgumentException("machine " + r.machine.name() + " is already registered on queue " + r.queue);
            }
        }
        registrations.add(registration);
        return this;
    }

    /**
     * Has the runtime take {@code machine}'s finished tasks out of the store's hot table as
     * {@code retention} says: passes every {@link #retentionInterval} on the clock archive or
     * delete, in batches of {@link #retentionBatch} trees per transaction, the tasks that have
     * been in a terminal state for the retention's time, and delete archived ones whose time in the
     * archive is up. A task with a parent goes with its root (under the root's machine's
     * retention) once the root and all its descendants are finished; a descendant of a machine
     * this runtime does not know (registered, resolved or retained, or the children's machine of
     * one of those) counts as unfinished. The machine need not be registered. Several runtimes,
     * in one process or many, may retain the same machine: the store keeps their passes apart.
     *
     * @throws IllegalArgumentException if the machine has no terminal state, or already has a retention here
     */
    public TaskRuntimeBuilder retain(Machine<?, ?> machine, Retention retention) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(retention, "retention");
        if (machine.terminals().isEmpty()) {
            throw new IllegalArgumentException("machine " + machine.name() + " has no terminal state: none of its tasks ever finishes");
        }
        for (RetentionPasses.Rule r : retained) {
            if (r.machine().name().equals(machine.name())) {
                throw new IllegalArgumentException("machine " + machine.name() + " already has a retention: " + r.retention());
            }
        }
        retained.add(new RetentionPasses.Rule(machine, retention));
        return this;
    }

    /**
     * Sets how many trees (a finished task with its descendants) one retention batch, one store
     * transaction, takes at most (default {@value TaskRuntime#DEFAULT_RETENTION_BATCH}); a pass
     * runs batch after batch while they come back full.
     *
     * @throws IllegalArgumentException if not within 1..10,000
     */
    public TaskRuntimeBuilder retentionBatch(int trees) {
        if (trees < 1 || trees > 10_000) throw new IllegalArgumentException("retention batch must be within 1..10000, was " + trees);
        this.retentionBatch = trees;
        return this;
    }

    /**
     * Sets how often retention passes run, on the clock (default 1 minute); the first one runs
     * one interval after {@link TaskRuntime#start()}.
     *
     * @throws IllegalArgumentException if not positive
     */
    public TaskRuntimeBuilder retentionInterval(Duration value) {
        Objects.requireNonNull(value, "retentionInterval");
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("retention interval must be positive, was " + value);
        this.retentionInterval = value;
        return this;
    }

    /**
     * Declares the recurring schedule {@code recurrence}: each of its occurrences creates a task of
     * {@code machine} as {@code template} says (queue, priority, attributes, payload), keyed by the
     * occurrence ({@link dev.statekit.core.schedule.Occurrence#key()}) and with the attributes
     * {@code schedule} and {@code scheduled_at}. The runtime writes the declaration to the store when it
     * starts: a new schedule starts then; an unchanged one keeps its progress, so occurrences missed
     * while nothing ran follow its misfire policy; a changed timing starts again from the start. Every
     * runtime that knows the machine (registered, resolved, or declaring a schedule of it) creates
     * due occurrences at its polls, and the store creates each once, across processes. Change
     * schedules at run time with {@link dev.statekit.core.ops.TaskOperations#schedule}.
     *
     * @throws IllegalArgumentException if a schedule of the same name is already declared here, or the
     *                                  template sets a parent, dependencies, an idempotency key or a not-before time
     */
    public TaskRuntimeBuilder schedule(Machine<?, ?> machine, dev.statekit.core.schedule.Recurrence recurrence, TaskSpec template) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(recurrence, "recurrence");
        Objects.requireNonNull(template, "template");
        for (SchedulePasses.Declared d : schedules) {
            if (d.recurrence().name().equals(recurrence.name())) {
                throw new IllegalArgumentException("schedule " + recurrence.name() + " is already declared");
            }
        }
        dev.statekit.core.internal.ScheduleRecords.declare(machine, recurrence, template, java.time.Instant.EPOCH);   // checks the template
        schedules.add(new SchedulePasses.Declared(machine, recurrence, template));
        return this;
    }

    /** Declares the recurring schedule {@code recurrence} creating tasks of {@code machine} with the default spec; see {@link #schedule(Machine, dev.statekit.core.schedule.Recurrence, TaskSpec)}. */
    public TaskRuntimeBuilder schedule(Machine<?, ?> machine, dev.statekit.core.schedule.Recurrence recurrence) {
        return schedule(machine, recurrence, TaskSpec.defaults());
    }

    /**
     * Sets how long the runtime's {@linkplain dev.statekit.store.ProcessRecord process record} may go
     * unrefreshed before readers count the process as gone (default: the lease duration, three
     * heartbeats by default; its leases expire about then too). The record is refreshed at every
     * heartbeat, so this must be longer than the heartbeat interval.
     *
     * @throws IllegalArgumentException if not positive
     */
    public TaskRuntimeBuilder processGoneAfter(Duration value) {
        Objects.requireNonNull(value, "processGoneAfter");
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("processGoneAfter must be positive, was " + value);
        this.processGoneAfter = value;
        return this;
    }

    /**
     * Sets how long the records of stopped and gone processes are kept after they were last seen
     * (default 1 day): the runtime deletes older ones when it starts, and once per retention at most while it runs.
     *
     * @throws IllegalArgumentException if not positive
     */
    public TaskRuntimeBuilder processRetention(Duration value) {
        Objects.requireNonNull(value, "processRetention");
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("processRetention must be positive, was " + value);
        this.processRetention = value;
        return this;
    }

    /**
     * Builds the runtime (not yet started).
     *
     * @throws IllegalStateException if nothing is registered, the heartbeat is not shorter than the
     *         lease, or {@link #processGoneAfter} is not longer than the heartbeat
     */
    public TaskRuntime build() {
        if (registrations.isEmpty()) throw new IllegalStateException("register at least one machine and worker");
        if (heartbeat != null && heartbeat.compareTo(leaseDuration) >= 0) {
            throw new IllegalStateException("heartbeat " + heartbeat + " must be shorter than the lease " + leaseDuration);
        }
        Duration beat = heartbeat != null ? heartbeat : leaseDuration.dividedBy(3);
        if (processGoneAfter != null && processGoneAfter.compareTo(beat) <= 0) {
            throw new IllegalStateException("processGoneAfter " + processGoneAfter + " must be longer than the heartbeat " + beat);
        }
        return new TaskRuntime(this);
    }
}
