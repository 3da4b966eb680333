package dev.statekit.core;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.store.Store;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every part of one {@link TaskRuntime} shares: the engine, store and clock, the settings,
 * the registrations, the life cycle, and the runs this runtime holds now. Built once; its fields
 * are final, and the mutable ones ({@link #running}, {@link #completed}) are thread-safe.
 */
final class RuntimeContext {
    /** How many records a scan of the store reads at once (expired leases, due waits, blocked tasks). */
    static final int SCAN_BATCH = 200;

    final TransitionEngine engine;
    final Store store;
    final Clock clock;
    final String owner;
    final Executor executor;
    final int slots;
    final int batchSize;
    final Duration leaseDuration;
    final Duration heartbeat;
    final Duration pollInterval;
    final Duration cancelGrace;
    final boolean forceCancel;
    final ErrorClassifier classifier;
    final Registrations registrations;
    final Lifecycle life = new Lifecycle();
    final Timers timers;
    /** The runs this runtime's workers hold, by task id: added by a claim, removed when the result is written or the run abandoned. */
    final ConcurrentHashMap<Long, Run<?, ?>> running = new ConcurrentHashMap<>();
    final AtomicLong completed = new AtomicLong();
    private final SplittableRandom random;

    RuntimeContext(TransitionEngine engine, String owner, Executor executor, int slots, int batchSize, Duration leaseDuration,
                   Duration heartbeat, Duration pollInterval, Duration cancelGrace, boolean forceCancel,
                   ErrorClassifier classifier, Registrations registrations, long seed) {
        this.engine = engine;
        this.store = engine.store();
        this.clock = engine.clock();
        this.owner = owner;
        this.executor = executor;
        this.slots = slots;
        this.batchSize = batchSize;
        this.leaseDuration = leaseDuration;
        this.heartbeat = heartbeat;
        this.pollInterval = pollInterval;
        this.cancelGrace = cancelGrace;
        this.forceCancel = forceCancel;
        this.classifier = classifier;
        this.registrations = registrations;
        this.timers = new Timers(clock, owner);
        this.random = new SplittableRandom(seed);
    }

    /** Returns a system command acting as this runtime. */
    Command command() {
        return Command.system().actor(owner);
    }

    /** Returns the next number of the retry jitter, in [0, 1). */
    double nextRandom() {
        synchronized (random) {
            return random.nextDouble();
        }
    }
}
