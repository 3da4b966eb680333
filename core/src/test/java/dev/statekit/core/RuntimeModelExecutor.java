package dev.statekit.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The executor of {@link RuntimeModel}: it runs nothing by itself. Every runnable submitted by a
 * runtime waits in one list, tagged with that runtime, until the model runs it by its index (so
 * work can be run out of order, or left waiting as a slow worker would), runs them all, or
 * discards those of a runtime that crashed. A runnable whose worker never returns
 * ({@link RuntimeModel.Hang}) is parked for good, as a thread stuck in a worker would be.
 *
 * <p>Used on the test thread only.
 */
final class RuntimeModelExecutor {
    private record Entry(int runtime, Runnable command) {}

    private final List<Entry> pending = new ArrayList<>();
    private final List<Entry> stuck = new ArrayList<>();

    /** Returns the executor a runtime with index {@code runtime} submits to. */
    Executor forRuntime(int runtime) {
        return command -> pending.add(new Entry(runtime, Objects.requireNonNull(command, "command")));
    }

    /** Returns how many runnables wait. */
    int pending() {
        return pending.size();
    }

    /** Returns whether a worker of runtime {@code runtime} is stuck. */
    boolean hasStuck(int runtime) {
        for (Entry e : stuck) if (e.runtime() == runtime) return true;
        return false;
    }

    /** Returns how many workers are stuck. */
    int stuck() {
        return stuck.size();
    }

    /** Runs the waiting runnable at {@code index} (taken modulo the number waiting); returns whether one ran. */
    boolean runAt(int index) {
        if (pending.isEmpty()) return false;
        run(pending.remove(Math.floorMod(index, pending.size())));
        return true;
    }

    /**
     * Runs the oldest runnables until none waits.
     *
     * @throws AssertionError if more than {@code limit} ran (the runtime never settles)
     */
    int runAll(int limit) {
        int ran = 0;
        while (!pending.isEmpty()) {
            if (++ran > limit) throw new AssertionError("the runtimes still submit work after " + limit + " runnables");
            run(pending.remove(0));
        }
        return ran;
    }

    /** Discards everything runtime {@code runtime} submitted, waiting or stuck: a crashed process runs nothing more. */
    void discard(int runtime) {
        pending.removeIf(e -> e.runtime() == runtime);
        stuck.removeIf(e -> e.runtime() == runtime);
    }

    private void run(Entry e) {
        try {
            e.command().run();
        } catch (RuntimeModel.Hang hang) {
            stuck.add(e);
        }
    }
}
