package dev.statekit.store;

import java.time.Instant;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A filter over tasks with keyset paging: tasks whose id is greater than {@code afterId}, in
 * ascending id order, at most {@code limit} of them.
 *
 * <p>A time range is half-open: a task matches from its start (inclusive) to its end (exclusive);
 * either end may be absent. Stores keep times to the microsecond, so ranges are meant at that
 * precision or coarser.
 *
 * @param machine     only tasks of this machine, if set
 * @param states      only tasks in one of these states; empty means any state
 * @param parentId    only children of this task, if set
 * @param queue       only tasks on this queue, if set
 * @param errorCode   only tasks whose last error ({@link TaskRecord#lastError()}) has this code, if set
 * @param createdFrom only tasks created at or after this time, if set
 * @param createdTo   only tasks created before this time, if set
 * @param updatedFrom only tasks last changed at or after this time, if set
 * @param updatedTo   only tasks last changed before this time, if set
 * @param afterId     the id after which the page starts (0 for the first page)
 * @param limit       the page size, 1 to {@value #MAX_LIMIT}
 */
public record TaskQuery(@Nullable String machine, Set<String> states, @Nullable Long parentId,
                        @Nullable String queue, @Nullable String errorCode,
                        @Nullable Instant createdFrom, @Nullable Instant createdTo,
                        @Nullable Instant updatedFrom, @Nullable Instant updatedTo,
                        long afterId, int limit) {

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
        return new TaskQuery(null, Set.of(), null, null, null, null, null, null, null, 0, 100);
    }

    /** Returns this query restricted to {@code machineName}. */
    public TaskQuery machine(String machineName) {
        return new TaskQuery(Objects.requireNonNull(machineName), states, parentId, queue, errorCode,
                createdFrom, createdTo, updatedFrom, updatedTo, afterId, limit);
    }

    /** Returns this query restricted to the given state names. */
    public TaskQuery states(Collection<String> stateNames) {
        return new TaskQuery(machine, Set.copyOf(stateNames), parentId, queue, errorCode,
                createdFrom, createdTo, updatedFrom, updatedTo, afterId, limit);
    }

    /** Returns this query restricted to children of {@code parent}. */
    public TaskQuery parent(long parent) {
        return new TaskQuery(machine, states, parent, queue, errorCode, createdFrom, createdTo, updatedFrom, updatedTo, afterId, limit);
    }

    /** Returns this query restricted to {@code queueName}. */
    public TaskQuery queue(String queueName) {
        return new TaskQuery(machine, states, parentId, Objects.requireNonNull(queueName), errorCode,
                createdFrom, createdTo, updatedFrom, updatedTo, afterId, limit);
    }

    /** Returns this query restricted to tasks whose last error has code {@code code}. */
    public TaskQuery errorCode(String code) {
        return new TaskQuery(machine, states, parentId, queue, Objects.requireNonNull(code),
                createdFrom, createdTo, updatedFrom, updatedTo, afterId, limit);
    }

    /** Returns this query restricted to tasks created at or after {@code from} and before {@code to}; a null end is open. */
    public TaskQuery createdBetween(@Nullable Instant from, @Nullable Instant to) {
        return new TaskQuery(machine, states, parentId, queue, errorCode, from, to, updatedFrom, updatedTo, afterId, limit);
    }

    /** Returns this query restricted to tasks last changed at or after {@code from} and before {@code to}; a null end is open. */
    public TaskQuery updatedBetween(@Nullable Instant from, @Nullable Instant to) {
        return new TaskQuery(machine, states, parentId, queue, errorCode, createdFrom, createdTo, from, to, afterId, limit);
    }

    /** Returns this query starting after task id {@code id}. */
    public TaskQuery after(long id) {
        return new TaskQuery(machine, states, parentId, queue, errorCode, createdFrom, createdTo, updatedFrom, updatedTo, id, limit);
    }

    /** Returns this query with page size {@code size}. */
    public TaskQuery limit(int size) {
        return new TaskQuery(machine, states, parentId, queue, errorCode, createdFrom, createdTo, updatedFrom, updatedTo, afterId, size);
    }

    /** Returns whether {@code task} passes the filter (ignoring paging). */
    public boolean matches(TaskRecord task) {
        TaskError error = task.lastError();
        return (machine == null || machine.equals(task.machine()))
                && (states.isEmpty() || states.contains(task.state()))
                && (parentId == null || parentId.equals(task.parentId()))
                && (queue == null || queue.equals(task.queue()))
                && (errorCode == null || error != null && errorCode.equals(error.code()))
                && within(task.createdAt(), createdFrom, createdTo)
                && within(task.updatedAt(), updatedFrom, updatedTo);
    }

    private static boolean within(Instant t, @Nullable Instant from, @Nullable Instant to) {
        return (from == null || !t.isBefore(from)) && (to == null || t.isBefore(to));
    }
}
