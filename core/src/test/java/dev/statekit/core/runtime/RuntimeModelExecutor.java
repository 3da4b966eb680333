package dev.statekit.core.runtime;


import dev.statekit.core.spi.WorkResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The executor of {@link RuntimeModel}: it runs nothing by itself. Every runnable submitted by a
 * runtime waits in one list, tagged with that runtime, until the model runs it by its index (so
 * work can be run out of order, or left waiting as a slow worker would), runs them all, or
 * discards those of a runtime that crashed. A runnable whose worker never returns
 * ({@link #hang()}) stays parked for good, as a thread stuck in a worker would be.
 *
 * <p>Each runnable runs on a thread of its own while the test thread waits until it has either
 * ended or parked in a hanging worker, so the model stays sequential: one runnable at a time, in
 * the model's order. Called from the test thread only.
 */
public final class RuntimeModelExecutor {
    private record Entry(int runtime, Runnable command) {}

    private final List<Entry> pending = new ArrayList<>();
    private final List<Entry> stuck = new ArrayList<>();

    /** Returns the executor a runtime with index {@code runtime} submits to. */
    public Executor forRuntime(int runtime) {
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
    public boolean runAt(int index) {
        if (pending.isEmpty()) return false;
        run(pending.remove(Math.floorMod(index, pending.size())));
        return true;
    }

    /**
     * Runs the oldest runnables until none waits.
     *
     * @throws AssertionError if more than {@code limit} ran (the runtime never settles)
     */
    public int runAll(int limit) {
        int ran = 0;
        while (!pending.isEmpty()) {
            if (++ran > limit) throw new AssertionError("the runtimes still submit work after " + limit + " runnables");
            run(pending.remove(0));
        }
        return ran;
    }

    /** Discards everything runtime {@code runtime} submitted, waiting or stuck: a crashed process runs nothing more. */
    public void discard(int runtime) {
        pending.removeIf(e -> e.runtime() == runtime);
        stuck.removeIf(e -> e.runtime() == runtime);
    }

    /** The runnable running now tells the test thread through this whether it ended (false) or hung (true). */
    private static final ThreadLocal<CompletableFuture<Boolean>> CURRENT = new ThreadLocal<>();

    private void run(Entry e) {
        CompletableFuture<Boolean> hung = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            CURRENT.set(hung);
            try {
                e.command().run();
                hung.complete(false);
            } catch (Throwable x) {
                hung.completeExceptionally(x);
            }
        }, "model-runnable");
        t.setDaemon(true);      // a hung one stays parked until the JVM ends, as a stuck worker thread would
        t.start();
        try {
            if (hung.get(60, TimeUnit.SECONDS)) stuck.add(e);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while a runnable ran", x);
        } catch (ExecutionException x) {
            if (x.getCause() instanceof RuntimeException r) throw r;
            if (x.getCause() instanceof Error err) throw err;
            throw new AssertionError(x.getCause());
        } catch (TimeoutException x) {
            throw new AssertionError("a runnable neither ended nor hung within 60 s", x);
        }
    }

    /** Called by a worker that never returns: tells the test thread so, then parks its thread for good. */
    static WorkResult hang() {
        CompletableFuture<Boolean> hung = Objects.requireNonNull(CURRENT.get(), "hang() outside a model runnable");
        hung.complete(true);
        CountDownLatch never = new CountDownLatch(1);
        while (true) {
            try {
                never.await();
            } catch (InterruptedException ignored) {
                // a stuck worker ignores interrupts too
            }
        }
    }
}
