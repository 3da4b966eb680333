package dev.statekit.spring;

import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.spi.Worker;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A worker declared as a bean: the machine whose tasks it runs, on which queue, with which queue
 * options, or for one stage of the machine. The auto-configuration registers every bean of this
 * type with the runtime it makes:
 *
 * <pre>{@code
 * @Bean
 * WorkerRegistration<State, Event> shipping(Shipper shipper) {
 *     return WorkerRegistration.of(Orders.ORDER, shipper).options(QueueOptions.defaults().concurrency(4));
 * }
 * }</pre>
 *
 * Immutable: each wither returns a copy.
 *
 * @param <S> the machine's states
 * @param <E> the machine's events
 */
public final class WorkerRegistration<S extends Enum<S>, E extends Enum<E>> {
    private final Machine<S, E> machine;
    private final Worker<S> worker;
    private final @Nullable String queue;
    private final @Nullable String stage;
    private final QueueOptions options;

    private WorkerRegistration(Machine<S, E> machine, Worker<S> worker, @Nullable String queue, @Nullable String stage,
                               QueueOptions options) {
        this.machine = machine;
        this.worker = worker;
        this.queue = queue;
        this.stage = stage;
        this.options = options;
    }

    /**
     * Returns a registration of {@code worker} for {@code machine}'s tasks, on the queue named after
     * the machine with default queue options.
     *
     * @param machine the machine, which must declare a run policy
     * @param worker  the work behind its running state
     * @param <S>     the machine's states
     * @param <E>     the machine's events
     * @return the registration
     */
    public static <S extends Enum<S>, E extends Enum<E>> WorkerRegistration<S, E> of(Machine<S, E> machine, Worker<S> worker) {
        return new WorkerRegistration<>(Objects.requireNonNull(machine, "machine"), Objects.requireNonNull(worker, "worker"),
                null, null, QueueOptions.defaults());
    }

    /**
     * Returns a copy serving the queue {@code name} instead of the machine's name.
     *
     * @param name the queue
     * @return the copy
     * @throws IllegalStateException if a stage is set (a stage's queue is the stage's own)
     */
    public WorkerRegistration<S, E> queue(String name) {
        Objects.requireNonNull(name, "queue");
        if (stage != null) throw new IllegalStateException("a stage's worker serves the stage's queue; set either queue or stage");
        return new WorkerRegistration<>(machine, worker, name, null, options);
    }

    /**
     * Returns a copy serving only the stage {@code name} of the machine, on the stage's queue.
     *
     * @param name the stage, as the machine declares it
     * @return the copy
     * @throws IllegalStateException if a queue is set
     */
    public WorkerRegistration<S, E> stage(String name) {
        Objects.requireNonNull(name, "stage");
        if (queue != null) throw new IllegalStateException("a stage's worker serves the stage's queue; set either queue or stage");
        return new WorkerRegistration<>(machine, worker, null, name, options);
    }

    /**
     * Returns a copy with the queue options {@code value} (concurrency, rate limits, precondition).
     *
     * @param value the options
     * @return the copy
     */
    public WorkerRegistration<S, E> options(QueueOptions value) {
        return new WorkerRegistration<>(machine, worker, queue, stage, Objects.requireNonNull(value, "options"));
    }

    /** Returns the machine. */
    public Machine<S, E> machine() {
        return machine;
    }

    /** Returns the worker. */
    public Worker<S> worker() {
        return worker;
    }

    /** Returns the queue served: the one set, the stage's, or the machine's name. */
    public String queueName() {
        if (queue != null) return queue;
        if (stage != null) {
            var policy = machine.stages().get(stage);
            if (policy != null && policy.queue() != null) return Objects.requireNonNull(policy.queue());
        }
        return machine.name();
    }

    /** Returns the stage served, or null when the registration serves the machine's run policy. */
    public @Nullable String stage() {
        return stage;
    }

    /** Returns the queue options. */
    public QueueOptions options() {
        return options;
    }

    /**
     * Registers this worker with {@code builder}.
     *
     * @param builder the runtime's builder
     * @return the builder
     * @throws IllegalArgumentException as {@link TaskRuntimeBuilder#register} and {@link TaskRuntimeBuilder#registerStage} do
     */
    public TaskRuntimeBuilder registerWith(TaskRuntimeBuilder builder) {
        if (stage != null) return builder.registerStage(machine, stage, worker, options);
        return builder.register(machine, queueName(), worker, options);
    }

    @Override
    public String toString() {
        return "WorkerRegistration[" + machine.name() + (stage != null ? " stage " + stage : "") + " on " + queueName() + "]";
    }
}
