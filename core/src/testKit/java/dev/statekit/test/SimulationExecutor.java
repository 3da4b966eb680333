package dev.statekit.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The executor of a {@link RuntimeSimulation}: it runs nothing by itself. Every runnable a
 * runtime submits waits in one list, tagged with that runtime, until the simulation runs it by
 * its index (so work can run out of order, or wait as a slow worker would), runs them all, or
 * discards those of a runtime that crashed. Runnables run on the calling thread, one at a time.
 * Used from the test's thread only.
 */
final class SimulationExecutor {
    private record Entry(int runtime, Runnable command) {}

    private final List<Entry> pending = new ArrayList<>();

    /** Returns the executor the runtime with index {@code runtime} submits to. */
    Executor forRuntime(int runtime) {
        return command -> {
            synchronized (pending) {
                pending.add(new Entry(runtime, Objects.requireNonNull(command, "command")));
            }
        };
    }

    /** Returns how many runnables wait. */
    int pending() {
        synchronized (pending) {
            return pending.size();
        }
    }

    /** Runs the waiting runnable at {@code index} (modulo the number waiting); returns whether one ran. */
    boolean runAt(int index) {
        Entry e;
        synchronized (pending) {
            if (pending.isEmpty()) return false;
            e = pending.remove(Math.floorMod(index, pending.size()));
        }
        e.command().run();
        return true;
    }

    /**
     * Runs the oldest runnables until none waits; returns how many ran.
     *
     * @throws AssertionError if more than {@code limit} ran (the runtimes never settle)
     */
    int runAll(int limit) {
        int ran = 0;
        while (runAt(0)) {
            if (++ran > limit) throw new AssertionError("the runtimes still submit work after " + limit + " runnables");
        }
        return ran;
    }

    /** Discards everything runtime {@code runtime} submitted: a crashed process runs nothing more. */
    void discard(int runtime) {
        synchronized (pending) {
            pending.removeIf(e -> e.runtime() == runtime);
        }
    }
}
