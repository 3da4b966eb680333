package dev.statekit.examples.hosts;

import dev.statekit.core.Machine;
import dev.statekit.core.Task;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.Page;
import dev.statekit.store.TaskQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Helpers the hosts share: reading every task of a query, and one task that must exist. */
final class Tasks {
    private Tasks() {}

    /** Returns every task of {@code machine} matching {@code query}, in id order, reading page by page. */
    static <S extends Enum<S>, E extends Enum<E>> List<Task<S>> all(TransitionEngine engine, Machine<S, E> machine, TaskQuery query) {
        List<Task<S>> found = new ArrayList<>();
        TaskQuery q = query.machine(machine.name()).limit(TaskQuery.MAX_LIMIT);
        for (Page<Task<S>> page = engine.query(machine, q); ; page = engine.query(machine, q.after(Objects.requireNonNull(page.nextAfterId())))) {
            found.addAll(page.items());
            if (!page.hasNext()) return found;
        }
    }

    /** Returns the task {@code id} of {@code machine}; it must exist. */
    static <S extends Enum<S>, E extends Enum<E>> Task<S> get(TransitionEngine engine, Machine<S, E> machine, long id) {
        return engine.find(machine, id).orElseThrow(() -> new IllegalArgumentException("no task " + id + " of " + machine.name()));
    }
}
