package dev.statekit.core.internal;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wall clock. Timers run on one daemon thread, started when a timer is scheduled and ended
 * once no timer has been pending for {@link #IDLE_MILLIS} ms, so a program whose runtimes have
 * stopped (and cancelled their timers) keeps no statekit thread alive.
 */
public final class SystemClock implements Clock {
    /** The shared instance. */
    public static final SystemClock INSTANCE = new SystemClock();
    private static final Logger log = LoggerFactory.getLogger(SystemClock.class);

    /** How long the timer thread waits without any pending timer before it ends. */
    static final long IDLE_MILLIS = 200;

    private final java.time.Clock utc = java.time.Clock.systemUTC();
    private volatile @Nullable ScheduledThreadPoolExecutor timers;

    private SystemClock() {}

    @Override
    public Instant now() {
        return utc.instant();
    }

    @Override
    public Cancellable schedule(Instant at, Runnable action) {
        long delayNanos = Math.max(0, Duration.between(now(), at).toNanos());
        ScheduledFuture<?> f = timers().schedule(() -> {
            try {
                action.run();
            } catch (RuntimeException | Error e) {
                log.warn("timer action failed", e);
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    private ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor t = timers;
        if (t == null) {
            synchronized (this) {
                t = timers;
                if (t == null) {
                    t = new ScheduledThreadPoolExecutor(1, r -> {
                        Thread thread = new Thread(r, "statekit-timer");
                        thread.setDaemon(true);
                        return thread;
                    });
                    t.setRemoveOnCancelPolicy(true);      // a cancelled timer leaves nothing for the thread to wait for
                    t.setKeepAliveTime(IDLE_MILLIS, TimeUnit.MILLISECONDS);
                    t.allowCoreThreadTimeOut(true);
                    timers = t;
                }
            }
        }
        return t;
    }
}
