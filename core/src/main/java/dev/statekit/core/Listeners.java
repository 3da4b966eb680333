package dev.statekit.core;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's listeners: a copy-on-write array read without locks on every change, told once the
 * change is committed ({@link Store#afterCommit}: at once for a store whose writes commit by
 * themselves, at the commit of the caller's transaction for a store enlisted in one, never after
 * its rollback). A listener's exception is logged and never undoes the change. The views an engine
 * makes over other stores ({@link TransitionEngine#within}) share the subscribers and tell them
 * through their own store.
 */
final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(TransitionEngine.class);

    /** The subscribers, shared by an engine and its views. */
    private static final class Subscribers {
        volatile TransitionListener[] all;

        Subscribers(TransitionListener[] all) {
            this.all = all;
        }
    }

    private final Subscribers subscribers;
    private final Store store;

    Listeners(List<TransitionListener> initial, Store store) {
        this(new Subscribers(initial.toArray(new TransitionListener[0])), store);
    }

    private Listeners(Subscribers subscribers, Store store) {
        this.subscribers = subscribers;
        this.store = store;
    }

    /** Returns the same subscribers, told once {@code other}'s writes are committed. */
    Listeners on(Store other) {
        return new Listeners(subscribers, other);
    }

    Cancellable add(TransitionListener listener) {
        Objects.requireNonNull(listener, "listener");
        Subscribers s = subscribers;
        synchronized (s) {
            TransitionListener[] now = s.all;
            TransitionListener[] next = Arrays.copyOf(now, now.length + 1);
            next[now.length] = listener;
            s.all = next;
        }
        return () -> {
            synchronized (s) {
                List<TransitionListener> rest = new ArrayList<>(List.of(s.all));
                boolean removed = rest.remove(listener);
                s.all = rest.toArray(new TransitionListener[0]);
                return removed;
            }
        };
    }

    /** Returns whether listeners other than {@code own} are subscribed. */
    boolean anyBesides(TransitionListener own) {
        for (TransitionListener l : subscribers.all) if (l != own) return true;
        return false;
    }

    void created(String machine, TaskRecord record) {
        store.afterCommit(() -> tellCreated(machine, record));
    }

    private void tellCreated(String machine, TaskRecord record) {
        for (TransitionListener l : subscribers.all) {
            try {
                l.onCreated(machine, record);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on creation of task {}", l, record.id(), e);
            }
        }
    }

    void transitioned(String machine, TaskRecord task, HistoryEntry entry) {
        store.afterCommit(() -> tellTransitioned(machine, task, entry));
    }

    private void tellTransitioned(String machine, TaskRecord task, HistoryEntry entry) {
        if (log.isDebugEnabled()) {
            log.debug("task {} {} --{}--> {} (v{})", entry.taskId(), entry.from(), entry.event(), entry.to(), entry.version());
        }
        for (TransitionListener l : subscribers.all) {
            try {
                l.onTransition(machine, task, entry);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on task {} version {}; the change stands", l, task.id(), task.version(), e);
            }
        }
    }

    void queueChanged(QueueRecord queue, @org.jspecify.annotations.Nullable String actor) {
        store.afterCommit(() -> tellQueueChanged(queue, actor));
    }

    private void tellQueueChanged(QueueRecord queue, @org.jspecify.annotations.Nullable String actor) {
        for (TransitionListener l : subscribers.all) {
            try {
                l.onQueueChanged(queue, actor);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on the change of queue {}; the change stands", l, queue.name(), e);
            }
        }
    }
}
