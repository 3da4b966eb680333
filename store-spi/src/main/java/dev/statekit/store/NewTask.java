package dev.statekit.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
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
        List<Long> dependsOn) {

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
    }

    /** Creates the description of a task that depends on nothing. */
    public NewTask(String machine, int machineVersion, String state, String queue, int priority, @Nullable Long parentId,
            Attributes attributes, @Nullable String payload, @Nullable String idempotencyKey, @Nullable Instant notBefore,
            Instant createdAt) {
        this(machine, machineVersion, state, queue, priority, parentId, attributes, payload, idempotencyKey, notBefore,
                createdAt, List.of());
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

    /** Returns this description with {@code ids} as its dependencies. */
    public NewTask withDependencies(List<Long> ids) {
        return new NewTask(machine, machineVersion, state, queue, priority, parentId, attributes, payload, idempotencyKey,
                notBefore, createdAt, ids);
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
                notBefore, null, attributes, payload, idempotencyKey, createdAt, createdAt, 0);
    }
}
