package dev.statekit.core.runtime;

import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The registrations of one runtime, in the order given, and by machine name. Immutable. */
final class Registrations {
    private final List<Registration<?, ?>> all;
    private final Map<String, List<Registration<?, ?>>> byMachine = new LinkedHashMap<>();

    Registrations(List<Registration<?, ?>> all) {
        this.all = List.copyOf(all);
        for (Registration<?, ?> r : this.all) byMachine.computeIfAbsent(r.machine.name(), k -> new ArrayList<>()).add(r);
    }

    /** Returns the names of the machines served. */
    Set<String> machines() {
        return byMachine.keySet();
    }

    List<Registration<?, ?>> all() {
        return all;
    }

    int size() {
        return all.size();
    }

    /** Returns one registration per machine (the first of each), for duties that concern a machine rather than a queue. */
    List<Registration<?, ?>> onePerMachine() {
        List<Registration<?, ?>> first = new ArrayList<>(byMachine.size());
        for (List<Registration<?, ?>> rs : byMachine.values()) first.add(rs.get(0));
        return first;
    }

    /**
     * Returns the registration that serves {@code t}: the one of its machine on its queue whose
     * stage has its state, else the one on its queue, else the one whose stage has its state, else
     * its machine's first; null for a machine not served.
     */
    @Nullable Registration<?, ?> of(TaskRecord t) {
        List<Registration<?, ?>> regs = byMachine.get(t.machine());
        if (regs == null) return null;
        Registration<?, ?> onQueue = null;
        Registration<?, ?> ofState = null;
        for (Registration<?, ?> r : regs) {
            boolean q = r.queue.equals(t.queue());
            boolean s = r.ownStates.contains(t.state());
            if (q && s) return r;
            if (q && onQueue == null) onQueue = r;
            if (s && ofState == null) ofState = r;
        }
        return onQueue != null ? onQueue : ofState != null ? ofState : regs.get(0);
    }

    /** Returns the registrations of machine {@code name}, in the order given; empty for a machine not served. */
    List<Registration<?, ?>> forMachine(String name) {
        return byMachine.getOrDefault(name, List.of());
    }

    /** Returns whether {@code task} of {@code machine} is one some registration claims now. */
    boolean claimable(String machine, TaskRecord task) {
        List<Registration<?, ?>> regs = byMachine.get(machine);
        if (regs == null) return false;
        for (Registration<?, ?> r : regs) if (r.claims(task.queue(), task.state())) return true;
        return false;
    }
}
