package dev.statekit.core.spi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * An executor that runs nothing until told to, on the calling thread, for deterministic tests
 * of the runtime together with {@link ManualClock}.
 *
 * <p>Submitted tasks queue in order; {@link #runNext()} runs the oldest, {@link #runAll()} runs
 * until the queue is empty (including tasks submitted meanwhile), and {@link #drop()} discards
 * the queue (a crashed process's work that never ran). Thread-safe.
 */
public final class ManualExecutor implements Executor {
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();

    @Override
    public synchronized void execute(Runnable command) {
        queue.add(java.util.Objects.requireNonNull(command, "command"));
    }

    /** Returns how many tasks wait. */
    public synchronized int pending() {
        return queue.size();
    }

    /**
     * Runs the oldest waiting task, if any.
     *
     * @return whether a task ran
     */
    public boolean runNext() {
        Runnable next;
        synchronized (this) {
            next = queue.poll();
        }
        if (next == null) return false;
        next.run();
        return true;
    }

    /**
     * Runs tasks until none waits, at most {@code limit} of them.
     *
     * @return how many ran
     * @throws IllegalStateException if tasks still wait after {@code limit} ran (a loop that never settles)
     */
    public int runAll(int limit) {
        int ran = 0;
        while (runNext()) {
            if (++ran >= limit && pending() > 0) throw new IllegalStateException("still " + pending() + " tasks after running " + ran);
        }
        return ran;
    }

    /** Runs tasks until none waits (at most a million). */
    public int runAll() {
        return runAll(1_000_000);
    }

    /** Discards every waiting task and returns them. */
    public synchronized List<Runnable> drop() {
        List<Runnable> dropped = new ArrayList<>(queue);
        queue.clear();
        return dropped;
    }
}
