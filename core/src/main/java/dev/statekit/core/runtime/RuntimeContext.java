package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.internal.Kernel;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.store.Store;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every part of one {@link TaskRuntime} shares: the engine, store and clock, the settings,
 * the registrations, the life cycle, and the runs this runtime holds now. Built once; its fields
 * are final, and the mutable ones ({@link #running}, {@link #completed}) are thread-safe.
 */
final class RuntimeContext {
    /** How many records a scan of the store reads at once (expired leases, due waits, blocked tasks). */
    static final int SCAN_BATCH = 200;
    /** The most tasks an adaptive batch claims at once. */
    static final int ADAPTIVE_MAX = 256;
    /** How long an adaptive batch may run on the clock and still grow: claiming ahead delays others by about this much. */
    static final Duration BATCH_WINDOW = Duration.ofMillis(1);

    final TransitionEngine engine;
    /** The engine's ways in for the runtime: changes with its adjustments, announcements, group passes. */
    final Kernel kernel;
    final Store store;
    final Clock clock;
    final String owner;
    final Executor executor;
    /**
     * Whether {@link #executor} is the runtime's own pool of platform threads (not one a host passed
     * in): then a dispatch round runs the first batch it claims on its own thread instead of handing it over.
     */
    final boolean ownThreads;
    final int slots;
    /** The batch size a slot claims, or with {@link #adaptiveBatches} the most it claims. */
    final int batchSize;
    /** Whether batches adapt to how long tasks take ({@link SlotLoop}): from one task up to {@link #batchSize}. */
    final boolean adaptiveBatches;
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
    /**
     * Set when tasks may be leased to this owner with no run holding them: a claim the store may
     * have committed although its answer was lost, or results that could not be recorded. The next
     * housekeeping gives such tasks back ({@link LeaseRecovery#recoverUnheld}) instead of leaving
     * them to wait for their leases to expire.
     */
    final AtomicBoolean unheldLeases = new AtomicBoolean();
    /** What the runtime reports of its work: the last minute's counts, and events to its listeners. */
    final RuntimeEvents events;
    private final SplittableRandom random;

    /** A context without runtime listeners. */
    RuntimeContext(TransitionEngine engine, String owner, Executor executor, boolean ownThreads, int slots, int batchSize,
                   Duration leaseDuration, Duration heartbeat, Duration pollInterval, Duration cancelGrace, boolean forceCancel,
                   ErrorClassifier classifier, Registrations registrations, long seed) {
        this(engine, owner, executor, ownThreads, slots, batchSize, leaseDuration, heartbeat, pollInterval, cancelGrace, forceCancel,
                classifier, registrations, seed, List.of());
    }

    /** A context whose slots claim batches of {@code batchSize}, or adaptive batches with {@code batchSize} 0, and that tells {@code listeners} of its work. */
    RuntimeContext(TransitionEngine engine, String owner, Executor executor, boolean ownThreads, int slots, int batchSize,
                   Duration leaseDuration, Duration heartbeat, Duration pollInterval, Duration cancelGrace, boolean forceCancel,
                   ErrorClassifier classifier, Registrations registrations, long seed, List<RuntimeListener> listeners) {
        this.engine = engine;
        this.kernel = Kernel.of(engine);
        this.store = engine.store();
        this.clock = engine.clock();
        this.owner = owner;
        this.executor = executor;
        this.ownThreads = ownThreads;
        this.slots = slots;
        this.adaptiveBatches = batchSize == 0;
        this.batchSize = batchSize == 0 ? ADAPTIVE_MAX : batchSize;
        this.leaseDuration = leaseDuration;
        this.heartbeat = heartbeat;
        this.pollInterval = pollInterval;
        this.cancelGrace = cancelGrace;
        this.forceCancel = forceCancel;
        this.classifier = classifier;
        this.registrations = registrations;
        this.timers = new Timers(clock, owner);
        this.random = new SplittableRandom(seed);
        this.events = new RuntimeEvents(owner, registrations, listeners);
    }

    /** Returns how many tasks a slot claims when it starts: one for adaptive batches (grown by {@link SlotLoop}), else the batch size. */
    int firstBatch() {
        return adaptiveBatches ? 1 : batchSize;
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
