package dev.statekit.core;

import dev.statekit.core.internal.Adjust;
import dev.statekit.core.internal.GroupResolved;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * An engine's {@link Kernel}: the runtime's and the operations' way into the engine's write
 * pipeline ({@link Commit}), its listeners, its group passes and the facts of a machine's table.
 * One per engine; immutable.
 */
final class KernelAccess implements Kernel {
    private final TransitionEngine engine;
    private final Commit commit;
    private final Listeners listeners;
    private final Groups groups;
    private final Records records;
    private final List<TaskInterceptor> interceptors;

    KernelAccess(TransitionEngine engine, Commit commit, Listeners listeners, Groups groups, Records records,
                 List<TaskInterceptor> interceptors) {
        this.engine = engine;
        this.interceptors = interceptors;
        this.records = records;
        this.commit = commit;
        this.listeners = listeners;
        this.groups = groups;
    }

    @Override
    public TransitionEngine engine() {
        return engine;
    }

    @Override
    public List<TaskInterceptor> interceptors() {
        return interceptors;
    }

    @Override
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command,
                                                                  @Nullable Adjust adjust) {
        return commit.one(new Commit.Request<>(machine, taskId, new Move.Row<>(event), command, adjust));
    }

    @Override
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> requeue(Machine<S, E> machine, long taskId, S to, String event,
                                                                    Command command, @Nullable Adjust adjust) {
        return commit.one(new Commit.Request<>(machine, taskId, new Move.Requeue<>(to, event), command, adjust));
    }

    @Override
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> reorder(Machine<S, E> machine, long taskId, String name, int priority,
                                                                    long sequence, Command command) {
        return commit.one(new Commit.Request<>(machine, taskId, new Move.Reorder<>(name, priority, sequence), command, null));
    }

    @Override
    public List<Outcome<?>> fireEach(List<? extends Fire<?, ?>> fires) {
        List<Commit.Request<?, ?>> requests = new ArrayList<>(fires.size());
        for (Fire<?, ?> f : fires) requests.add(request(f));
        return commit.each(requests);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Commit.Request<S, E> request(Fire<S, E> f) {
        return new Commit.Request<>(f.machine(), f.taskId(), new Move.Row<>(f.event()), f.command(), f.adjust(), f.known(), null);
    }

    @Override
    public <S extends Enum<S>, E extends Enum<E>> Outcome.@Nullable Refused<S> forbidden(Machine<S, E> machine, TaskRecord current,
                                                                                     E event, Command command) {
        return commit.forbidden(machine, current, event.name(), command);
    }

    @Override
    public <S extends Enum<S>, E extends Enum<E>> Outcome.@Nullable Refused<S> forbidden(Machine<S, E> machine, TaskRecord current,
                                                                                     String name, Command command) {
        return commit.forbidden(machine, current, name, command);
    }

    @Override
    public void announce(String machine, TaskRecord task, HistoryEntry entry) {
        listeners.transitioned(machine, task, entry);
    }

    @Override
    public dev.statekit.store.NewTask newTask(Machine<?, ?> machine, TaskSpec spec) {
        return records.newTask(machine, spec);
    }

    @Override
    public void announceCreated(String machine, TaskRecord task) {
        listeners.created(machine, task);
    }

    @Override
    public void announceQueue(QueueRecord queue, @Nullable String actor) {
        listeners.queueChanged(queue, actor);
    }

    @Override
    public boolean hasListenersBesides(TransitionListener own) {
        return listeners.anyBesides(own);
    }

    @Override
    public int resolveGroups(Collection<? extends Machine<?, ?>> machines, int maxPasses,
                             @Nullable BiConsumer<GroupResolved, TaskRecord> resolutions) {
        return groups.resolve(List.copyOf(machines), maxPasses, resolutions);
    }

    @Override
    public Map<String, Machine<?, ?>> groupMachines(Collection<? extends Machine<?, ?>> owners) {
        return Groups.registry(List.copyOf(owners));
    }

    /** The machine facts the kernel's static methods answer, by the decider. */
    static final Kernel.Facts FACTS = new Kernel.Facts() {
        @Override
        public <S extends Enum<S>, E extends Enum<E>> ClaimRule claimRule(Machine<S, E> machine, S from, E event) {
            return Decider.claimRule(machine, from, event);
        }

        @Override
        public <S extends Enum<S>, E extends Enum<E>> @Nullable Adjust givesBackOnCancel(Machine<S, E> machine, S from, E cancel) {
            return Decider.givesBackOnCancel(machine, from, cancel);
        }
    };
}
