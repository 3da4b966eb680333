package dev.statekit.core.ops;

import dev.statekit.core.Machine;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The tasks of one machine a bulk operation ({@link TaskOperations#retryAll(TaskFilter, Enum, boolean, dev.statekit.core.Command)},
 * {@link TaskOperations#cancelAll}, {@link TaskOperations#deleteAll}) or a {@link TaskOperations#count} selects: in some
 * states, on a queue, children of a parent, with a last error code, created or last changed within a half-open
 * time range (start inclusive, end exclusive), and, once counted, no later than the last task the count saw.
 *
 * <p>Immutable; start from {@link #of(Machine)}.
 *
 * @param machine     the tasks' machine
 * @param states      only tasks in one of these states; empty means any state
 * @param queue       only tasks on this queue, if set
 * @param parentId    only children of this task, if set
 * @param errorCode   only tasks whose last error has this code, if set
 * @param createdFrom only tasks created at or after this time, if set
 * @param createdTo   only tasks created before this time, if set
 * @param updatedFrom only tasks last changed at or after this time, if set
 * @param updatedTo   only tasks last changed before this time, if set
 * @param upToId      only tasks whose id is at most this one, if set: {@link BulkCount#lastId()} of a count, so that
 *                    an operation touches no task created after it was counted
 * @param <S>         the state type
 * @param <E>         the event type
 */
public record TaskFilter<S extends Enum<S>, E extends Enum<E>>(Machine<S, E> machine, Set<S> states, @Nullable String queue,
                                                               @Nullable Long parentId, @Nullable String errorCode,
                                                               @Nullable Instant createdFrom, @Nullable Instant createdTo,
                                                               @Nullable Instant updatedFrom, @Nullable Instant updatedTo,
                                                               @Nullable Long upToId) {

    /** Creates a filter; the states are copied. */
    public TaskFilter {
        Objects.requireNonNull(machine, "machine");
        states = states.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(states));
    }

    /** Returns a filter over every task of {@code machine}. */
    public static <S extends Enum<S>, E extends Enum<E>> TaskFilter<S, E> of(Machine<S, E> machine) {
        return new TaskFilter<>(machine, Set.of(), null, null, null, null, null, null, null, null);
    }

    /** Returns this filter restricted to tasks in one of {@code inStates}. */
    @SafeVarargs
    public final TaskFilter<S, E> states(S... inStates) {
        List<S> list = new ArrayList<>(inStates.length);
        for (S s : inStates) list.add(s);
        return states(list);
    }

    /** Returns this filter restricted to tasks in one of {@code inStates}; empty means any state. */
    public TaskFilter<S, E> states(Collection<S> inStates) {
        return new TaskFilter<>(machine, Set.copyOf(inStates), queue, parentId, errorCode, createdFrom, createdTo, updatedFrom,
                updatedTo, upToId);
    }

    /** Returns this filter restricted to tasks on {@code queueName}. */
    public TaskFilter<S, E> queue(String queueName) {
        return new TaskFilter<>(machine, states, Objects.requireNonNull(queueName), parentId, errorCode, createdFrom, createdTo,
                updatedFrom, updatedTo, upToId);
    }

    /** Returns this filter restricted to children of task {@code parent}. */
    public TaskFilter<S, E> parent(long parent) {
        return new TaskFilter<>(machine, states, queue, parent, errorCode, createdFrom, createdTo, updatedFrom, updatedTo, upToId);
    }

    /** Returns this filter restricted to tasks whose last error has code {@code code}. */
    public TaskFilter<S, E> errorCode(String code) {
        return new TaskFilter<>(machine, states, queue, parentId, Objects.requireNonNull(code), createdFrom, createdTo, updatedFrom,
                updatedTo, upToId);
    }

    /** Returns this filter restricted to tasks created at or after {@code from} and before {@code to}; a null end is open. */
    public TaskFilter<S, E> createdBetween(@Nullable Instant from, @Nullable Instant to) {
        return new TaskFilter<>(machine, states, queue, parentId, errorCode, from, to, updatedFrom, updatedTo, upToId);
    }

    /** Returns this filter restricted to tasks last changed at or after {@code from} and before {@code to}; a null end is open. */
    public TaskFilter<S, E> updatedBetween(@Nullable Instant from, @Nullable Instant to) {
        return new TaskFilter<>(machine, states, queue, parentId, errorCode, createdFrom, createdTo, from, to, upToId);
    }

    /** Returns this filter restricted to tasks whose id is at most {@code lastId} (a count's {@link BulkCount#lastId()}). */
    public TaskFilter<S, E> upTo(long lastId) {
        return new TaskFilter<>(machine, states, queue, parentId, errorCode, createdFrom, createdTo, updatedFrom, updatedTo, lastId);
    }

    /** Returns the store query of this filter (without {@link #upToId()}, which the operation applies to each page), first page. */
    public TaskQuery toQuery() {
        TaskQuery q = TaskQuery.all().machine(machine.name());
        if (!states.isEmpty()) {
            q = q.states(states.stream().map(Enum::name).toList());
        }
        if (queue != null) q = q.queue(queue);
        if (parentId != null) q = q.parent(parentId);
        if (errorCode != null) q = q.errorCode(errorCode);
        return q.createdBetween(createdFrom, createdTo).updatedBetween(updatedFrom, updatedTo);
    }

    /** Returns whether {@code task}, as it is now, passes this filter. */
    public boolean matches(TaskRecord task) {
        return toQuery().matches(task) && (upToId == null || task.id() <= upToId);
    }

    /** Returns the names of the states, sorted, for logs and views. */
    List<String> stateNames() {
        return states.stream().map(Enum::name).sorted().toList();
    }
}
