package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Task;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.store.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task a worker of a runtime runs: the worker's view of it. The stop signal is set once, by
 * whichever thread comes first (a heartbeat that lost the lease, a cancellation, a stop), and runs
 * the worker's cancel actions on that thread; everything else is written before the worker starts.
 */
final class Run<S extends Enum<S>, E extends Enum<E>> implements WorkContext<S> {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** Why a worker was asked to stop. */
    enum StopReason {
        /** The task was cancelled. */
        CANCELLED,
        /** The runtime is stopping. */
        SHUTDOWN,
        /** The lease was lost: another process may hold the task now. */
        LEASE_LOST,
        /** The attempt ran past its run policy's timeout. */
        TIMEOUT
    }

    final Registration<S, E> reg;
    final Task<S> task;
    final Lease lease;
    final Map<String, String> progress = new ConcurrentHashMap<>();
    private final Clock clock;
    private final List<Runnable> onCancel = new ArrayList<>();
    private volatile @Nullable StopReason stopReason;
    /** When the attempt must have ended (its start plus the policy's timeout), or null without a limit. */
    volatile java.time.@Nullable Instant deadline;
    volatile @Nullable Command cancelCommand;
    /** When the worker was called, read only when a runtime listener is registered; null otherwise. Written and read by the slot's thread. */
    java.time.@Nullable Instant began;
    /** When the worker returned. Written and read by the slot's thread. */
    java.time.@Nullable Instant ended;

    Run(Registration<S, E> reg, Task<S> task, Lease lease, Clock clock) {
        this.reg = reg;
        this.task = task;
        this.lease = lease;
        this.clock = clock;
    }

    long id() {
        return task.id();
    }

    /** Records that the worker returned at {@code at}. */
    void finished(java.time.Instant at) {
        this.ended = at;
    }

    /** Returns how long the worker ran, or null when its start was not read. */
    java.time.@Nullable Duration ran() {
        java.time.Instant from = began;
        java.time.Instant to = ended;
        return from == null || to == null ? null : RuntimeEvents.between(from, to);
    }

    /** Asks the worker to stop for {@code reason}; only the first signal counts. */
    void signal(StopReason reason) {
        List<Runnable> actions;
        synchronized (this) {
            if (stopReason != null) return;
            stopReason = reason;
            actions = new ArrayList<>(onCancel);
            onCancel.clear();
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException e) {
                log.warn("cancel action of task {} failed", task.id(), e);
            }
        }
    }

    @Nullable StopReason stopReason() {
        return stopReason;
    }

    @Override
    public Task<S> task() {
        return task;
    }

    @Override
    public Lease lease() {
        return lease;
    }

    @Override
    public boolean cancelled() {
        return stopReason != null;
    }

    @Override
    public @Nullable String cancelReason() {
        StopReason r = stopReason;
        return r == null ? null : r.name();
    }

    @Override
    public void onCancel(Runnable action) {
        Objects.requireNonNull(action, "action");
        synchronized (this) {
            if (stopReason == null) {
                onCancel.add(action);
                return;
            }
        }
        action.run();
    }

    @Override
    public void progress(String key, String value) {
        progress.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    @Override
    public Clock clock() {
        return clock;
    }
}
