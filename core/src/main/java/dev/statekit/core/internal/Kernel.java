package dev.statekit.core.internal;

import dev.statekit.core.Children;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the runtime and the operations façade use of an engine beyond its API: changes with the
 * runtime's record adjustment, the runtime's requeue and reorder moves, writes of several known
 * records, the authorizer, listener announcements, group passes with their resolutions, and the
 * facts of a machine's table the runtime acts on. Every change still goes through the engine's one
 * write pipeline. Not API: obtained with {@link #of(TransitionEngine)}.
 */
public interface Kernel {

    /** The history event of the runtime's retry that waits in place (a run policy without a retryable row). */
    String RETRY = "RETRY";
    /** The history event of the runtime's release of a task without a release row; it ends the processing. */
    String RELEASE = "RELEASE";

    /** Returns the kernel of {@code engine}. */
    static Kernel of(TransitionEngine engine) {
        return Access.kernel(Objects.requireNonNull(engine, "engine"));
    }

    /**
     * One change of {@link #fireEach}: fire {@code event} at {@code taskId} with the runtime's
     * adjustment, decided on {@code known} (the task as the caller last saw it) when given.
     */
    record Fire<S extends Enum<S>, E extends Enum<E>>(Machine<S, E> machine, long taskId, E event, Command command,
                                                      @Nullable Adjust adjust, @Nullable TaskRecord known) {
        /** Creates a change. */
        public Fire {
            Objects.requireNonNull(machine, "machine");
            Objects.requireNonNull(event, "event");
            Objects.requireNonNull(command, "command");
        }
    }

    /** Returns the engine. */
    TransitionEngine engine();

    /** Returns the engine's interceptors, in the order added. */
    List<TaskInterceptor> interceptors();

    /** Fires {@code event} at task {@code taskId} with the runtime's adjustment of the written record. */
    <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command,
                                                           @Nullable Adjust adjust);

    /** Moves a running task back to the claimable state {@code to} without a row, recorded as {@code event}. */
    <S extends Enum<S>, E extends Enum<E>> Outcome<S> requeue(Machine<S, E> machine, long taskId, S to, String event, Command command,
                                                             @Nullable Adjust adjust);

    /** Gives task {@code taskId} a new place in its queue, recorded as {@code name} with a history entry. */
    <S extends Enum<S>, E extends Enum<E>> Outcome<S> reorder(Machine<S, E> machine, long taskId, String name, int priority, long sequence,
                                                             Command command);

    /** Fires several commands at distinct tasks, each on its own, with one read and one write round trip where it can. */
    List<Outcome<?>> fireEach(List<? extends Fire<?, ?>> fires);

    /** Asks the authorizer about a person's command; its refusal, or null when allowed. */
    <S extends Enum<S>, E extends Enum<E>> Outcome.@Nullable Refused<S> forbidden(Machine<S, E> machine, TaskRecord current, E event,
                                                                              Command command);

    /**
     * Asks the authorizer about a person's change of task {@code current} that fires no event of the
     * table (a deletion), named {@code name}; its refusal, or null when allowed.
     */
    <S extends Enum<S>, E extends Enum<E>> Outcome.@Nullable Refused<S> forbidden(Machine<S, E> machine, TaskRecord current, String name,
                                                                              Command command);

    /** Tells listeners of a change a store applied on the engine's behalf (a claim), with the entry the store wrote. */
    void announce(String machine, TaskRecord task, HistoryEntry entry);

    /** Describes a new task of {@code machine} as {@code spec} says, created now, as {@link TransitionEngine#create(Machine, dev.statekit.core.TaskSpec)} would. */
    dev.statekit.store.NewTask newTask(Machine<?, ?> machine, dev.statekit.core.TaskSpec spec);

    /** Tells listeners of a task a store created on the engine's behalf (an occurrence of a schedule). */
    void announceCreated(String machine, TaskRecord task);

    /** Tells listeners of a change of a queue's control record, made by {@code actor} (null: the system). */
    void announceQueue(QueueRecord queue, @Nullable String actor);

    /** Returns whether listeners other than {@code own} are subscribed. */
    boolean hasListenersBesides(TransitionListener own);

    /** Runs resolution passes as {@link TransitionEngine#resolveGroups} does, handing {@code resolutions} each group resolved. */
    int resolveGroups(Collection<? extends Machine<?, ?>> machines, int maxPasses, @Nullable BiConsumer<GroupResolved, TaskRecord> resolutions);

    /** Returns the machines a resolution of groups owned by tasks of {@code owners} may meet: the owners, their children's, their dependencies'. */
    Map<String, Machine<?, ?>> groupMachines(Collection<? extends Machine<?, ?>> owners);

    /** Returns how a claim moves a task of {@code machine} from {@code from} by {@code event}: the row's target and effect. */
    static <S extends Enum<S>, E extends Enum<E>> ClaimRule claimRule(Machine<S, E> machine, S from, E event) {
        return Access.facts().claimRule(machine, from, event);
    }

    /**
     * Returns {@link Adjust#GIVE_BACK_ATTEMPT} when the cancel event {@code cancel} stops a task in
     * {@code from} to be run again (a pause, a reset); null when it ends the task.
     */
    static <S extends Enum<S>, E extends Enum<E>> @Nullable Adjust givesBackOnCancel(Machine<S, E> machine, S from, E cancel) {
        return Access.facts().givesBackOnCancel(machine, from, cancel);
    }

    /**
     * Returns the terminal states of {@code machines} and of the machines of their children, and theirs,
     * by machine name: what a retention request counts as finished.
     */
    static Map<String, Set<String>> finishedStates(Collection<? extends Machine<?, ?>> machines) {
        Map<String, Set<String>> finished = new HashMap<>();
        ArrayDeque<Machine<?, ?>> next = new ArrayDeque<>(machines);
        while (!next.isEmpty()) {
            Machine<?, ?> m = next.poll();
            if (finished.containsKey(m.name())) continue;
            Set<String> states = new HashSet<>();
            for (Enum<?> s : m.terminals()) states.add(s.name());
            finished.put(m.name(), Set.copyOf(states));
            Children<?, ?> c = m.children();
            if (c != null) next.add(c.machine());
        }
        return Map.copyOf(finished);
    }

    /** The facts of a machine's table the runtime acts on, decided by the engine's decider. Not API. */
    interface Facts {
        /** See {@link Kernel#claimRule}. */
        <S extends Enum<S>, E extends Enum<E>> ClaimRule claimRule(Machine<S, E> machine, S from, E event);

        /** See {@link Kernel#givesBackOnCancel}. */
        <S extends Enum<S>, E extends Enum<E>> @Nullable Adjust givesBackOnCancel(Machine<S, E> machine, S from, E cancel);
    }

    /** Where {@link #of} finds an engine's kernel; the engine installs it once. Not API. */
    final class Access {
        private static volatile @Nullable Function<TransitionEngine, Kernel> kernels;
        private static volatile @Nullable Facts facts;

        private Access() {}

        /**
         * Installs the function that returns an engine's kernel, and the machine facts; called once,
         * by the engine's class as it is initialized.
         *
         * @throws IllegalStateException when already installed
         */
        public static synchronized void install(Function<TransitionEngine, Kernel> kernelOf, Facts machineFacts) {
            if (kernels != null) throw new IllegalStateException("the kernel access is installed already");
            facts = Objects.requireNonNull(machineFacts, "machineFacts");
            kernels = Objects.requireNonNull(kernelOf, "kernelOf");
        }

        static Kernel kernel(TransitionEngine engine) {
            return Objects.requireNonNull(kernels, "kernels").apply(engine);      // installed: there is an engine
        }

        static Facts facts() {
            Facts f = facts;
            if (f != null) return f;
            try {       // no engine was made yet: initializing its class installs the facts
                Class.forName(TransitionEngine.class.getName(), true, TransitionEngine.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            return Objects.requireNonNull(facts, "facts");
        }
    }
}
