package dev.statekit.store;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which finished tasks a retention batch may take out of the hot table ({@link Store#archive},
 * {@link Store#deleteFinished}): trees rooted at lease-free tasks of one machine, in a finished
 * state, last changed before a time, whose every descendant is finished and lease-free.
 *
 * <p>A <em>tree</em> is a task without a parent (its <em>root</em>) with all its descendants (its
 * children, their children, and so on). A task with a parent is never taken on its own: it goes
 * with its root. The store knows no machine's definition, so the request names the finished states
 * of every machine whose tasks may be found in a tree; a task of a machine the map does not name
 * counts as unfinished, and keeps its whole tree in the hot table.
 *
 * <p>The rules written once here ({@link #isRoot}, {@link #isMovable}) are those every store
 * applies, under its locks, to the tasks as they are when it moves them.
 *
 * @param machine        the machine of the roots
 * @param finishedBefore only roots last changed ({@link TaskRecord#updatedAt()}) strictly before this time are taken
 * @param finished       the finished (terminal) states of every machine the caller knows, by machine name;
 *                       must name {@code machine} with at least one state
 * @param max            the most trees to take in one batch (one transaction), at least 1; a tree counts once
 *                       however many descendants it has
 * @param roots          only these tasks may be roots, if set (an operator's choice of tasks, {@link #ofTasks});
 *                       the store then reads them by id instead of scanning the machine's finished tasks
 */
public record RetentionRequest(String machine, Instant finishedBefore, Map<String, Set<String>> finished, int max,
                               @org.jspecify.annotations.Nullable Set<Long> roots) {

    /**
     * Creates a request; the map and its sets are copied.
     *
     * @throws IllegalArgumentException if {@code max} is not positive, or {@code finished} names no
     *                                  finished state of {@code machine}
     */
    public RetentionRequest {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(finishedBefore, "finishedBefore");
        Map<String, Set<String>> copy = new HashMap<>();
        for (Map.Entry<String, Set<String>> e : finished.entrySet()) copy.put(e.getKey(), Set.copyOf(e.getValue()));
        finished = Map.copyOf(copy);
        if (max < 1) throw new IllegalArgumentException("max must be >= 1, was " + max);
        if (roots != null) roots = Set.copyOf(roots);
        Set<String> own = finished.get(machine);
        if (own == null || own.isEmpty()) {
            throw new IllegalArgumentException("the finished states name no state of machine " + machine + ": " + finished.keySet());
        }
    }

    /** Creates a request over every finished root of {@code machine} (no choice of ids). */
    public RetentionRequest(String machine, Instant finishedBefore, Map<String, Set<String>> finished, int max) {
        this(machine, finishedBefore, finished, max, null);
    }

    /**
     * Returns a request for the trees rooted at the tasks {@code ids} of {@code machine}, whenever they
     * finished: each is taken with its tree if it is a root (without a parent), finished and lease-free,
     * and its tree may go (as for any request); the others stay.
     *
     * @throws IllegalArgumentException if {@code ids} is empty, or {@code finished} names no finished state of {@code machine}
     */
    public static RetentionRequest ofTasks(String machine, java.util.Collection<Long> ids, Map<String, Set<String>> finished) {
        if (ids.isEmpty()) throw new IllegalArgumentException("no task ids");
        Set<Long> roots = Set.copyOf(ids);
        return new RetentionRequest(machine, Instant.MAX, finished, roots.size(), roots);
    }

    /** Returns the finished states of the roots' machine. */
    public Set<String> rootStates() {
        return finished.get(machine);
    }

    /** Returns whether {@code state} is a finished state of {@code taskMachine}; false for a machine the request does not name. */
    public boolean isFinished(String taskMachine, String state) {
        Set<String> states = finished.get(taskMachine);
        return states != null && states.contains(state);
    }

    /**
     * Returns whether {@code task} may be the root of a tree this request takes: a task of
     * {@link #machine()} without a parent, in a finished state, without a lease, last changed before
     * {@link #finishedBefore()}, and one of {@link #roots()} when they are set.
     */
    public boolean isRoot(TaskRecord task) {
        return task.machine().equals(machine) && task.parentId() == null && isMovable(task)
                && task.updatedAt().isBefore(finishedBefore) && (roots == null || roots.contains(task.id()));
    }

    /** Returns whether {@code task} may leave the hot table with its tree: finished (as the map says) and lease-free. */
    public boolean isMovable(TaskRecord task) {
        return task.lease() == null && isFinished(task.machine(), task.state());
    }
}
