package dev.statekit.examples.hosts.programs;

import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Completes futures when conditions over the store hold. A condition is checked when it is
 * registered and after every transition the engine applies, so it must depend only on what
 * the engine writes (claims by the store are seen at the next transition).
 */
final class Conditions implements TransitionListener, AutoCloseable {
    private record Waiter(BooleanSupplier condition, CompletableFuture<Void> future) {}

    private final List<Waiter> waiters = new CopyOnWriteArrayList<>();
    private final Cancellable subscription;

    Conditions(TransitionEngine engine) {
        this.subscription = engine.subscribe(this);
    }

    /** Returns a future completed once {@code condition} holds. */
    CompletableFuture<Void> when(BooleanSupplier condition) {
        Waiter w = new Waiter(condition, new CompletableFuture<>());
        waiters.add(w);
        check(w);
        return w.future();
    }

    /**
     * Waits until {@code condition} holds or {@code timeout} has passed.
     *
     * @return whether the condition holds
     */
    boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        CompletableFuture<Void> f = when(condition);
        try {
            f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            f.cancel(false);
            return condition.getAsBoolean();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a condition failed", e.getCause());
        }
    }

    private void check(Waiter w) {
        if (w.future().isDone()) {
            waiters.remove(w);
            return;
        }
        boolean holds;
        try {
            holds = w.condition().getAsBoolean();
        } catch (RuntimeException e) {
            w.future().completeExceptionally(e);
            waiters.remove(w);
            return;
        }
        if (holds) {
            w.future().complete(null);
            waiters.remove(w);
        }
    }

    @Override
    public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
        for (Waiter w : waiters) check(w);
    }

    @Override
    public void onCreated(String machine, TaskRecord task) {
        for (Waiter w : waiters) check(w);
    }

    @Override
    public void close() {
        subscription.cancel();
        for (Waiter w : waiters) w.future().cancel(false);
        waiters.clear();
    }
}
