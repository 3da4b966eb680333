package dev.statekit.store;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A filter over tasks with keyset paging: tasks whose id is greater than {@code afterId}, in
 * ascending id order, at most {@code limit} of them.
 *
 * @param machine  only tasks of this machine, if set
 * @param states   only tasks in one of these states; empty means any state
 * @param parentId only children of this task, if set
 * @param queue    only tasks on this queue, if set
 * @param afterId  the id after which the page starts (0 for the first page)
 * @param limit    the page size, 1 to {@value #MAX_LIMIT}
 */
public record TaskQuery(@Nullable String machine, Set<String> states, @Nullable Long parentId,
                        @Nullable String queue, long afterId, int limit) {

    /** The largest page a query may ask for. */
    public static final int MAX_LIMIT = 10_000;

    /**
     * Creates a query.
     *
     * @throws IllegalArgumentException if {@code limit} or {@code afterId} is out of range
     */
    public TaskQuery {
        states = Set.copyOf(states);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be within 1.." + MAX_LIMIT + ", was " + limit);
        }
        if (afterId < 0) throw new IllegalArgumentException("afterId must be >= 0, was " + afterId);
    }

    /** Returns a query over every task, first page of 100. */
    public static TaskQuery all() {
        return new TaskQuery(null, Set.of(), null, null, 0, 100);
    }

    /** Returns this query restricted to {@code machineName}. */
    public TaskQuery machine(String machineName) {
        return new TaskQuery(Objects.requireNonNull(machineName), states, parentId, queue, afterId, limit);
    }

    /** Returns this query restricted to the given state names. */
    public TaskQuery states(Collection<String> stateNames) {
        return new TaskQuery(machine, Set.copyOf(stateNames), parentId, queue, afterId, limit);
    }

    /** Returns this query restricted to children of {@code parent}. */
    public TaskQuery parent(long parent) {
        return new TaskQuery(machine, states, parent, queue, afterId, limit);
    }

    /** Returns this query restricted to {@code queueName}. */
    public TaskQuery queue(String queueName) {
        return new TaskQuery(machine, states, parentId, Objects.requireNonNull(queueName), afterId, limit);
    }

    /** Returns this query starting after task id {@code id}. */
    public TaskQuery after(long id) {
        return new TaskQuery(machine, states, parentId, queue, id, limit);
    }

    /** Returns this query with page size {@code size}. */
    public TaskQuery limit(int size) {
        return new TaskQuery(machine, states, parentId, queue, afterId, size);
    }

    /** Returns whether {@code task} passes the filter (ignoring paging). */
    public boolean matches(TaskRecord task) {
        return (machine == null || machine.equals(task.machine()))
                && (states.isEmpty() || states.contains(task.state()))
                && (parentId == null || parentId.equals(task.parentId()))
                && (queue == null || queue.equals(task.queue()));
    }
}
