package dev.statekit.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a store needs to create a task; the store assigns its id and FIFO sequence.
 *
 * @param machine        the machine name
 * @param machineVersion the machine version
 * @param state          the initial state name
 * @param queue          the queue name
 * @param priority       larger runs first
 * @param parentId       the parent task, if any
 * @param attributes     initial attributes
 * @param payload        the payload, if any
 * @param idempotencyKey creating again with the same (machine, key) returns the first task
 * @param notBefore      not runnable before this time, if set
 * @param createdAt      the creation time
 * @param dependsOn      the tasks this one waits on (see {@link #dependsOn()}); empty for none
 * @param uniqueKey      a key unique among the tasks of the machine in {@code uniqueStates} (see
 *                       {@link #uniqueKey()}); null for none
 * @param uniqueStates   the states in which the unique key holds; it contains {@code state} when a
 *                       key is given, and is empty when none is
 */
public record NewTask(
        String machine,
        int machineVersion,
        String state,
        String queue,
        int priority,
        @Nullable Long parentId,
        Attributes attributes,
        @Nullable String payload,
        @Nullable String idempotencyKey,
        @Nullable Instant notBefore,
        Instant createdAt,
        List<Long> dependsOn,
        @Nullable String uniqueKey,
        Set<String> uniqueStates) {

    /**
     * Creates the description of a new task.
     *
     * @throws NullPointerException if a non-nullable component is null
     * @throws IllegalArgumentException if a name or the key is blank
     */
    public NewTask {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(createdAt, "createdAt");
        if (machine.isBlank() || state.isBlank() || queue.isBlank()) {
            throw new IllegalArgumentException("machine, state and queue must not be blank");
        }
        if (idempotencyKey != null && idempotencyKey.isBlank()) {
            throw new IllegalArgumentException("idempotency key must not be blank when given");
        }
        dependsOn = List.copyOf(Objects.requireNonNull(dependsOn, "dependsOn"));
        if (new java.util.HashSet<>(dependsOn).size() != dependsOn.size()) {
            throw new IllegalArgumentException("a dependency is named twice: " + dependsOn);
        }
        for (long d : dependsOn) {
            if (d == 0) throw new IllegalArgumentException("0 is not a task id");
        }
        uniqueStates = Set.copyOf(Objects.requireNonNull(uniqueStates, "uniqueStates"));
        if (uniqueKey != null) {
            if (uniqueKey.isBlank()) throw new IllegalArgumentException("unique key must not be blank when given");
            if (!uniqueStates.contains(state)) {
                throw new IllegalArgumentException("the unique states " + new java.util.TreeSet<>(uniqueStates)
                        + " do not contain the initial state " + state);
            }
        } else if (!uniqueStates.isEmpty()) {
            throw new IllegalArgumentException("unique states are given without a unique key");
        }
    }

    /** Creates the description of a new task without a unique key. */
    public NewTask(String machine, int machineVersion, String state, String queue, int priority, @Nullable Long parentId,
            Attributes attributes, @Nullable String payload, @Nullable String idempotencyKey, @Nullable Instant notBefore,
            Instant createdAt, List<Long> dependsOn) {
        this(machine, machineVersion, state, queue, priority, parentId, attributes, payload, idempotencyKey, notBefore,
                createdAt, dependsOn, null, Set.of());
    }

    /** Creates the description of a task that depends on nothing. */
    public NewTask(String machine, int machineVersion, String state, String queue, int priority, @Nullable Long parentId,
            Attributes attributes, @Nullable String payload, @Nullable String idempotencyKey, @Nullable Instant notBefore,
            Instant createdAt) {
        this(machine, machineVersion, state, queue, priority, parentId, attributes, payload, idempotencyKey, notBefore,
                createdAt, List.of(), null, Set.of());
    }

    /**
     * The tasks this one waits on: positive numbers are ids of existing tasks; in
     * {@link Store#createAll}, {@code -k} names the {@code k}-th task (1-based) of the same list,
     * which must come earlier in it. A task with dependencies owns a {@link GroupKind#DEPENDENCIES}
     * group whose members are those tasks; it is written in the same transaction as the task,
     * with the members' states read under a lock, so that no member's change is missed.
     *
     * @return the dependencies, in the order given
     */
    @Override
    public List<Long> dependsOn() {
        return dependsOn;
    }

    /**
     * The key that makes this task unique among the tasks of its machine that are in one of
     * {@link #uniqueStates()}: while such a task holds the key, {@link Store#create} writes nothing and
     * returns that task ({@link CreateResult#created()} false), in every process that shares the store.
     * A task holds its key ({@link TaskRecord#uniqueKey()}) from its creation until the change that
     * moves it out of the unique states, which clears it; the machine's validation sees to it that a
     * task never comes back into them. When an idempotency key is given too, it is looked at first:
     * a task created with that idempotency key is returned whatever its state, and the idempotency
     * key is recorded only when this call creates the task.
     *
     * @return the unique key, or null
     */
    @Override
    public @Nullable String uniqueKey() {
        return uniqueKey;
    }

    /** Returns this description with {@code ids} as its dependencies. */
    public NewTask withDependencies(List<Long> ids) {
        return new NewTask(machine, machineVersion, state, queue, priority, parentId, attributes, payload, idempotencyKey,
                notBefore, createdAt, ids, uniqueKey, uniqueStates);
    }

    /**
     * Returns this description with a unique key, unique among the machine's tasks in {@code states}.
     *
     * @throws IllegalArgumentException if the key is blank or {@code states} lacks the initial state
     */
    public NewTask withUniqueKey(String key, Set<String> states) {
        return new NewTask(machine, machineVersion, state, queue, priority, parentId, attributes, payload, idempotencyKey,
                notBefore, createdAt, dependsOn, Objects.requireNonNull(key, "key"), states);
    }

    /**
     * Returns the first snapshot of the task this describes, as every store writes it: version 0,
     * no attempts, retries, lease or error, last updated when it was created.
     *
     * @param id       the id the store assigned
     * @param sequence the FIFO sequence the store assigned
     * @return the snapshot
     * @throws IllegalArgumentException if {@code id} is not positive
     */
    public TaskRecord toRecord(long id, long sequence) {
        return new TaskRecord(id, machine, machineVersion, state, queue, priority, sequence, parentId, 0, 0, null,
                notBefore, null, attributes, payload, idempotencyKey, createdAt, createdAt, 0, uniqueKey);
    }
}
