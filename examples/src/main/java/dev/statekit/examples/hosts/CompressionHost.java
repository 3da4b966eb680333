package dev.statekit.examples.hosts;

import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Fire;
import dev.statekit.core.GroupProgress;
import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.Precondition;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.CompressionBatch;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.Event;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.zip.Deflater;
import org.jspecify.annotations.Nullable;

/**
 * The compression host: a local compression queue that runs one task at a time.
 *
 * <p>A {@link TaskRuntime} is the scheduler. The queue {@value #QUEUE} has the concurrency limit
 * 1, held by the store, so even two hosts sharing one store never run two compressions at once.
 * Tasks start by priority ({@link CompressionTask#HIGH}, {@link CompressionTask#NORMAL},
 * {@link CompressionTask#LOW}), then in the order they were added; {@link #startNow} moves a task
 * to the front of its priority, and with anti-starvation a lower task starts after
 * {@value #STARVATION_LIMIT} consecutive higher ones. {@link #pauseQueue} lets the running task
 * finish and starts nothing more; {@link #stopAfterCurrent} does the same, marked as such. Before a
 * task starts, free disk space is checked: a task that does not fit waits in {@code BLOCKED} and
 * starts once space returns. A temporary failure is retried after 1 s, 2 s, 4 s; a task left
 * running by a crash is interrupted, then re-queued at the front once (or failed, without
 * automatic recovery).
 */
public final class CompressionHost implements AutoCloseable {
    /** The queue of the compression tasks. */
    public static final String QUEUE = "compression";
    /** The queue of the batch summaries. */
    public static final String SUMMARY_QUEUE = "compression-summary";
    /** The summary attribute holding what it found. */
    public static final String SUMMARY = "summary";
    /** Consecutive higher-priority starts after which a waiting lower-priority task starts. */
    public static final int STARVATION_LIMIT = 3;
    /** The task attribute naming the input. */
    public static final String INPUT = "input";
    /** The task attribute holding the input's size in bytes, which must fit in the free disk space. */
    public static final String SIZE = "size_bytes";
    /** The task attribute holding the size of the compressed output. */
    public static final String OUTPUT_BYTES = "output_bytes";
    /** The blocked reason when the free disk space is too small. */
    public static final String DISK_SPACE = "disk_space";

    /** Compresses one task's input. */
    @FunctionalInterface
    public interface Compressor {
        /**
         * Compresses the task's input and returns the output size. Should check
         * {@link WorkContext#cancelled()} between blocks and stop when it is set.
         *
         * @throws IOException a temporary failure, retried
         * @throws Exception other failures (a missing input, bad parameters) end the task in {@code FAILED}
         */
        long compress(WorkContext<State> context) throws Exception;
    }

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final TaskOperations operations;
    private final Machine<State, Event> machine;
    private final Compressor compressor;

    /**
     * Creates a host over {@code store} whose leases last 30 s.
     *
     * @param store       where the tasks live
     * @param clock       the clock of the engine and the runtime
     * @param executor    runs the runtime's workers; null for a pool of its own
     * @param owner       the lease owner name: a host restarted under the same name recovers at once
     * @param compressor  the compression
     * @param autoRecover whether an interrupted task is re-queued at the front once, or failed
     * @param freeBytes   the free disk space, checked before each start; null for no check
     */
    public CompressionHost(Store store, Clock clock, @Nullable Executor executor, String owner, Compressor compressor,
                           boolean autoRecover, @Nullable LongSupplier freeBytes) {
        this(store, clock, executor, owner, compressor, autoRecover, freeBytes, Duration.ofSeconds(30));
    }

    /**
     * Creates a host over {@code store}.
     *
     * @param store         where the tasks live
     * @param clock         the clock of the engine and the runtime
     * @param executor      runs the runtime's workers; null for a pool of its own
     * @param owner         the lease owner name: a host restarted under the same name recovers at once
     * @param compressor    the compression
     * @param autoRecover   whether an interrupted task is re-queued at the front once, or failed
     * @param freeBytes     the free disk space, checked before each start; null for no check
     * @param leaseDuration how long a compression's lease lasts unless renewed: how long after a crash
     *                      another host (or this one restarted under another name, on a shared store) takes the task over
     */
    public CompressionHost(Store store, Clock clock, @Nullable Executor executor, String owner, Compressor compressor,
                           boolean autoRecover, @Nullable LongSupplier freeBytes, Duration leaseDuration) {
        this(store, clock, executor, owner, compressor, autoRecover, freeBytes, leaseDuration, false);
    }

    /**
     * Creates a host over {@code store}, which may be used by this host alone.
     *
     * @param store         where the tasks live
     * @param clock         the clock of the engine and the runtime
     * @param executor      runs the runtime's workers; null for a pool of its own
     * @param owner         the lease owner name: a host restarted under the same name recovers at once
     * @param compressor    the compression
     * @param autoRecover   whether an interrupted task is re-queued at the front once, or failed
     * @param freeBytes     the free disk space, checked before each start; null for no check
     * @param leaseDuration how long a compression's lease lasts unless renewed
     * @param soleOwner     whether this host alone uses {@code store} (an embedded H2 file): at start it
     *                      recovers every lease it finds, whoever held it, instead of waiting for their expiry
     */
    public CompressionHost(Store store, Clock clock, @Nullable Executor executor, String owner, Compressor compressor,
                           boolean autoRecover, @Nullable LongSupplier freeBytes, Duration leaseDuration, boolean soleOwner) {
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        this.operations = TaskOperations.of(engine);
        this.compressor = Objects.requireNonNull(compressor, "compressor");
        this.machine = CompressionTask.machine(autoRecover);
        QueueOptions options = QueueOptions.defaults().concurrency(1).starvationLimit(STARVATION_LIMIT);
        if (freeBytes != null) options = options.precondition(diskSpace(freeBytes));
        // two worker slots, yet one compression at a time: the queue's limit decides, not the slots
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(owner).workers(2)
                .leaseDuration(leaseDuration).pollInterval(Duration.ofSeconds(1)).seed(1).soleOwner(soleOwner)
                .register(machine, QUEUE, this::work, options)
                .register(CompressionBatch.SUMMARY, SUMMARY_QUEUE, this::summarize, QueueOptions.defaults())
                .resolves(CompressionBatch.BATCH);
        if (executor != null) b.executor(executor);
        this.runtime = b.build();
    }

    /** Creates a host on the system clock with its own pool, a Deflater compressor and automatic recovery. */
    public CompressionHost(Store store) {
        this(store, Clock.system(), null, "compression-1", deflater(), true, null);
    }

    /** Returns the precondition that blocks a task whose input does not fit in the free disk space. */
    static Precondition diskSpace(LongSupplier freeBytes) {
        return task -> {
            long size = Long.parseLong(task.attributes().getOrDefault(SIZE, "0"));
            return freeBytes.getAsLong() < size ? DISK_SPACE : null;
        };
    }

    /**
     * Returns a compressor that deflates generated input of the task's size in 64 KiB blocks,
     * stopping between blocks when cancelled.
     */
    public static Compressor deflater() {
        return ctx -> {
            long size = Long.parseLong(ctx.task().attributes().getOrDefault(SIZE, "0"));
            byte[] block = ("statekit compression block of " + ctx.task().attribute(INPUT) + "\n").repeat(2048)
                    .getBytes(StandardCharsets.UTF_8);
            byte[] buffer = new byte[1 << 16];
            Deflater deflater = new Deflater();
            long out = 0;
            try {
                for (long done = 0; done < size; done += Math.min(block.length, size - done)) {
                    if (ctx.cancelled()) throw new IOException("stopped: " + ctx.cancelReason());
                    deflater.setInput(block, 0, (int) Math.min(block.length, size - done));
                    while (!deflater.needsInput()) out += deflater.deflate(buffer);
                }
                deflater.finish();
                while (!deflater.finished()) out += deflater.deflate(buffer);
            } finally {
                deflater.end();
            }
            return out;
        };
    }

    /** Returns the engine. */
    public TransitionEngine engine() {
        return engine;
    }

    /** Returns the runtime, the queue's scheduler. */
    public TaskRuntime runtime() {
        return runtime;
    }

    /** Returns the machine the host runs (with or without automatic recovery). */
    public Machine<State, Event> machine() {
        return machine;
    }

    /**
     * Starts the scheduler (recovering what a crashed host of the same owner left running); tasks a
     * crash left created but not queued are queued first.
     */
    public void start() {
        for (Task<State> t : Tasks.all(engine, machine, TaskQuery.all().states(List.of(State.CREATED.name())))) {
            engine.fire(machine, t.id(), Event.ENQUEUE, Command.system().reason("enqueued (restart heal)").expectVersion(t.version()));
        }
        runtime.start();
    }

    /** One file of a batch. */
    public record File(String input, long sizeBytes, int priority) {}

    /** A batch of files and the summary that runs after them. */
    public record Batch(long batchId, long summaryId) {}

    /**
     * Adds a batch: the files are the batch's children, created with it in one write and queued in
     * submission order; the summary is created depending on the batch, and runs once every file is
     * compressed (it fails when a file failed, and is cancelled with the batch).
     *
     * @param key an idempotency key: adding the same batch again returns the first
     */
    public Batch addBatch(String key, List<File> files) {
        long batch = engine.create(CompressionBatch.BATCH, TaskSpec.defaults().idempotencyKey(key)).task().id();
        List<TaskSpec> specs = new ArrayList<>(files.size());
        for (int i = 0; i < files.size(); i++) {
            File f = files.get(i);
            specs.add(TaskSpec.defaults().queue(QUEUE).priority(f.priority()).idempotencyKey(key + "/" + i)
                    .attribute(INPUT, f.input()).attribute(SIZE, Long.toString(f.sizeBytes())));
        }
        engine.addChildren(CompressionBatch.BATCH, batch, specs, true);      // created and sealed in one write
        List<Fire<?, ?>> enqueue = new ArrayList<>();
        for (Task<State> t : Tasks.all(engine, machine, TaskQuery.all().parent(batch).states(List.of(State.CREATED.name())))) {
            enqueue.add(new Fire<>(machine, t.id(), Event.ENQUEUE, Command.system().reason("enqueued").expectVersion(t.version())));
        }
        if (!enqueue.isEmpty()) engine.fireAll(enqueue);                     // a crash before this: start() queues them
        long summary = engine.create(CompressionBatch.SUMMARY, TaskSpec.defaults().queue(SUMMARY_QUEUE)
                .idempotencyKey(key + "/summary").dependsOn(batch)).task().id();
        return new Batch(batch, summary);
    }

    /** Cancels a batch: its waiting files are cancelled, the running one is asked to stop, and its summary is cancelled. */
    public Outcome<CompressionBatch.BatchState> cancelBatch(long batch, String user) {
        return engine.fire(CompressionBatch.BATCH, batch, CompressionBatch.BatchEvent.CANCEL, Command.user(user).reason("cancel batch"));
    }

    /** Returns how far a batch's files have got. */
    public GroupProgress batchProgress(long batch) {
        return engine.progress(CompressionBatch.BATCH, batch).orElseThrow();
    }

    /** The summary worker: adds up the sizes of the batch's files. */
    private WorkResult summarize(WorkContext<CompressionBatch.SummaryState> ctx) {
        long batch = operations.dependencies(ctx.task().id()).get(0);
        long in = 0;
        long out = 0;
        int files = 0;
        for (Task<State> t : Tasks.all(engine, machine, TaskQuery.all().parent(batch))) {
            files++;
            in += Long.parseLong(t.attributes().getOrDefault(SIZE, "0"));
            out += Long.parseLong(t.attributes().getOrDefault(OUTPUT_BYTES, "0"));
        }
        return WorkResult.success(Map.of(SUMMARY, files + " files, " + in + " bytes in, " + out + " bytes out"));
    }

    /** Adds a task: created and queued at once. */
    public long add(String input, long sizeBytes, int priority) {
        return add(null, input, sizeBytes, priority, Map.of()).task().id();
    }

    /**
     * Adds a task with more attributes, once per idempotency key: created and queued at once.
     * Adding again with the same key returns the first task (queued first if a crash left it
     * created), with {@link Created#created()} false.
     *
     * @param key        the idempotency key, or null for none
     * @param attributes more attributes of the task (the input and size are set from the arguments)
     */
    public Created<State> add(@Nullable String key, String input, long sizeBytes, int priority, Map<String, String> attributes) {
        return add(key, null, input, sizeBytes, priority, attributes);
    }

    /**
     * Adds a task as {@link #add(String, String, long, int, Map)} does, with a unique key: while a
     * task added with the same unique key has not ended ({@code COMPLETED} or {@code CANCELED}),
     * adding returns that task, with {@link Created#created()} false, in every process of the store.
     *
     * @param uniqueKey the unique key, or null for none
     */
    public Created<State> add(@Nullable String key, @Nullable String uniqueKey, String input, long sizeBytes, int priority,
                              Map<String, String> attributes) {
        TaskSpec spec = TaskSpec.defaults().queue(QUEUE).priority(priority).attributes(attributes)
                .attribute(INPUT, input).attribute(SIZE, Long.toString(sizeBytes));
        if (key != null) spec = spec.idempotencyKey(key);
        if (uniqueKey != null) spec = spec.uniqueKey(uniqueKey);
        Created<State> created = engine.create(machine, spec);
        Task<State> t = created.task();
        if (t.state() == State.CREATED) {
            Outcome<State> o = engine.fire(machine, t.id(), Event.ENQUEUE, Command.system().reason("enqueued").expectVersion(t.version()));
            // refused only when another caller (a retry with the key, a restart's heal) queued it meanwhile
            t = o instanceof Outcome.Applied<State> a ? a.task() : task(t.id());
        }
        return new Created<>(t, created.created());
    }

    /** Pause Queue: the running task finishes, nothing new starts. */
    public void pauseQueue() {
        operations.pause(QUEUE, asOperator());
    }

    /** Stop After Current: the running task finishes, then the queue stays paused. */
    public void stopAfterCurrent() {
        operations.stopAfterCurrent(QUEUE, asOperator());
    }

    /** Resume Queue. */
    public void resumeQueue() {
        operations.resume(QUEUE, asOperator());
    }

    private Command asOperator() {
        return Command.system().actor(runtime.owner());
    }

    /** Returns the operator's commands and reads over this host's engine. */
    public TaskOperations operations() {
        return operations;
    }

    /** Returns the queue's control record. */
    public QueueRecord queue() {
        return operations.queue(QUEUE);
    }

    /** Start Now: moves the task to the front of its priority, recorded in its history as {@code user}'s. */
    public boolean startNow(long id, String user) {
        return operations.moveToFront(machine, id, Command.user(user).reason("start now")).isApplied();
    }

    /** Changes the priority of a queued task, recorded in its history as {@code user}'s. */
    public boolean setPriority(long id, int priority, String user) {
        return operations.setPriority(machine, id, priority, Command.user(user).reason("priority " + priority)).isApplied();
    }

    /**
     * Moves a waiting task directly before another of the same priority.
     *
     * @throws IllegalArgumentException if the tasks differ in priority
     */
    public boolean moveBefore(long id, long beforeId, String user) {
        return operations.moveBefore(machine, id, beforeId, Command.user(user).reason("move before " + beforeId));
    }

    /** Cancels a task: a queued one at once, a running one at its next safe point. */
    public CancelResult<State> cancel(long id, String user) {
        return runtime.cancel(machine, id, Command.user(user).reason("cancel"));
    }

    /** Skips a queued task: it is canceled with {@code cancel_reason=skipped}. */
    public Outcome<State> skip(long id, String user) {
        return engine.fire(machine, id, Event.SKIP, Command.user(user).reason("skip"));
    }

    /** Retries a failed task: it goes to the front of its priority with a fresh retry budget. */
    public Outcome<State> retry(long id, String user) {
        return operations.retry(machine, id, Event.RETRY, true, Command.user(user).reason("manual retry"));
    }

    /** Holds a queued task: it is passed over until {@link #release}. */
    public Outcome<State> hold(long id, String user) {
        return engine.fire(machine, id, Event.PAUSE, Command.user(user).reason("hold"));
    }

    /** Releases a held task into the queue, at its old place. */
    public Outcome<State> release(long id, String user) {
        return engine.fire(machine, id, Event.RESUME, Command.user(user).reason("release"));
    }

    /** Returns the task. */
    public Task<State> task(long id) {
        return Tasks.get(engine, machine, id);
    }

    /** Returns every task of the queue. */
    public List<Task<State>> tasks() {
        return Tasks.all(engine, machine, TaskQuery.all().queue(QUEUE));
    }

    /**
     * The worker: compresses. A compressor's exception is classified by the runtime (temporary I/O
     * is retried by {@link CompressionTask#RETRY_POLICY}) and kept as the task's last error.
     */
    private WorkResult work(WorkContext<State> ctx) throws Exception {
        return WorkResult.success(Map.of(OUTPUT_BYTES, Long.toString(compressor.compress(ctx))));
    }

    /** Stops the scheduler gracefully and waits for it. */
    @Override
    public void close() {
        runtime.close();
    }
}
