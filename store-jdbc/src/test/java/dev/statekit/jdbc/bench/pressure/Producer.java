package dev.statekit.jdbc.bench.pressure;

import dev.statekit.jdbc.JdbcStore;
import java.io.PrintStream;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Creates no-op tasks at a fixed offered rate: every tick of {@code periodMillis} it credits the
 * rate times the wall-clock time since the last tick (so a slow tick does not lower the offered
 * rate) and creates the whole tasks of its credit with {@code Store.createAll}, in batches of at
 * most {@code batchMax}. A batch whose creation fails is not created again (it counts as failed).
 */
final class Producer {
    private final JdbcStore store;
    private final int periodMillis;
    private final int batchMax;
    private final @Nullable String payload;
    private final PrintStream log;
    private volatile double rate;
    private volatile boolean running = true;
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private long lastLog;
    private @Nullable Thread thread;

    Producer(JdbcStore store, double rate, int periodMillis, int batchMax, @Nullable String payload, PrintStream log) {
        this.store = store;
        this.rate = rate;
        this.periodMillis = periodMillis;
        this.batchMax = batchMax;
        this.payload = payload;
        this.log = log;
    }

    /** Starts creating at the rate on a thread of its own. */
    Producer start() {
        Thread t = new Thread(this::loop, "pressure-producer");
        t.setDaemon(true);
        thread = t;
        t.start();
        return this;
    }

    void rate(double tasksPerSecond) {
        rate = tasksPerSecond;
    }

    double rate() {
        return rate;
    }

    /** Tasks created (their creation committed). */
    long created() {
        return created.get();
    }

    /** Tasks whose creation failed. */
    long failed() {
        return failed.get();
    }

    private void loop() {
        long last = System.nanoTime();
        double credit = 0;
        while (running) {
            long next = last + TimeUnit.MILLISECONDS.toNanos(periodMillis);
            long wait = next - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait);
            long now = System.nanoTime();
            credit += rate * (now - last) / 1e9;
            last = now;
            while (running && credit >= 1) {
                int n = (int) Math.min(batchMax, Math.floor(credit));
                credit -= n;
                create(n);
            }
        }
    }

    /** Creates {@code n} tasks now in one {@code createAll}; returns whether it succeeded. */
    boolean create(int n) {
        try {
            store.createAll(Pressure.newTasks(n, Instant.now(), payload));
            created.addAndGet(n);
            return true;
        } catch (RuntimeException e) {
            failed.addAndGet(n);
            long now = System.nanoTime();
            if (now - lastLog > TimeUnit.SECONDS.toNanos(5)) {
                lastLog = now;
                log.println("  (creating " + n + " tasks failed: " + e + ")");
            }
            return false;
        }
    }

    /** Stops creating and waits for the thread to end. */
    void close() throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t != null) t.join(TimeUnit.MINUTES.toMillis(1));
    }
}
