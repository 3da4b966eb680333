package dev.statekit.core;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's listeners: a copy-on-write array read without locks on every change, told after
 * the change was written. A listener's exception is logged and never undoes the change.
 */
final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(TransitionEngine.class);

    private volatile TransitionListener[] all;

    Listeners(List<TransitionListener> initial) {
        this.all = initial.toArray(new TransitionListener[0]);
    }

    Cancellable add(TransitionListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (this) {
            TransitionListener[] now = all;
            TransitionListener[] next = Arrays.copyOf(now, now.length + 1);
            next[now.length] = listener;
            all = next;
        }
        return () -> {
            synchronized (this) {
                List<TransitionListener> rest = new ArrayList<>(List.of(all));
                boolean removed = rest.remove(listener);
                all = rest.toArray(new TransitionListener[0]);
                return removed;
            }
        };
    }

    /** Returns whether listeners other than {@code own} are subscribed. */
    boolean anyBesides(TransitionListener own) {
        for (TransitionListener l : all) if (l != own) return true;
        return false;
    }

    void created(String machine, TaskRecord record) {
        for (TransitionListener l : all) {
            try {
                l.onCreated(machine, record);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on creation of task {}", l, record.id(), e);
            }
        }
    }

    void transitioned(String machine, TaskRecord task, HistoryEntry entry) {
        if (log.isDebugEnabled()) {
            log.debug("task {} {} --{}--> {} (v{})", entry.taskId(), entry.from(), entry.event(), entry.to(), entry.version());
        }
        for (TransitionListener l : all) {
            try {
                l.onTransition(machine, task, entry);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on task {} version {}; the change stands", l, task.id(), task.version(), e);
            }
        }
    }

    void queueChanged(QueueRecord queue, @org.jspecify.annotations.Nullable String actor) {
        for (TransitionListener l : all) {
            try {
                l.onQueueChanged(queue, actor);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on the change of queue {}; the change stands", l, queue.name(), e);
            }
        }
    }
}
