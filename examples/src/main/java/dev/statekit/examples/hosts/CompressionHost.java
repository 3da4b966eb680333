package dev.statekit.examples.hosts;

import dev.statekit.core.CancelResult;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.QueueOptions;
import dev.statekit.core.Task;
import dev.statekit.core.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.Precondition;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.Event;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

    private static final Set<State> ENDED = EnumSet.of(State.COMPLETED, State.FAILED, State.CANCELED);

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final Machine<State, Event> machine;
    private final Compressor compressor;

    /**
     * Creates a host over {@code store}.
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
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        this.compressor = Objects.requireNonNull(compressor, "compressor");
        this.machine = CompressionTask.machine(autoRecover);
        QueueOptions options = QueueOptions.defaults().concurrency(1).starvationLimit(STARVATION_LIMIT);
        if (freeBytes != null) options = options.precondition(diskSpace(freeBytes));
        // two worker slots, yet one compression at a time: the queue's limit decides, not the slots
        TaskRuntime.Builder b = TaskRuntime.builder(engine).owner(owner).workers(2)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).seed(1)
                .register(machine, QUEUE, this::work, options);
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

    /** Starts the scheduler (recovering what a crashed host of the same owner left running). */
    public void start() {
        runtime.start();
    }

    /** Adds a task: created and queued at once. */
    public long add(String input, long sizeBytes, int priority) {
        long id = engine.create(machine, TaskSpec.defaults().queue(QUEUE).priority(priority)
                .attribute(INPUT, input).attribute(SIZE, Long.toString(sizeBytes))).task().id();
        engine.fire(machine, id, Event.ENQUEUE, Command.system().reason("enqueued")).orElseThrow();
        return id;
    }

    /** Pause Queue: the running task finishes, nothing new starts. */
    public void pauseQueue() {
        runtime.pause(QUEUE);
    }

    /** Stop After Current: the running task finishes, then the queue stays paused. */
    public void stopAfterCurrent() {
        runtime.stopAfterCurrent(QUEUE);
    }

    /** Resume Queue. */
    public void resumeQueue() {
        runtime.resume(QUEUE);
    }

    /** Returns the queue's control record. */
    public QueueRecord queue() {
        return engine.store().queue(QUEUE);
    }

    /** Start Now: moves the task to the front of its priority. */
    public boolean startNow(long id) {
        return runtime.moveToFront(id);
    }

    /** Changes the priority of a queued task. */
    public boolean setPriority(long id, int priority) {
        return runtime.setPriority(id, priority);
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
        return runtime.retry(machine, id, Event.RETRY, true, Command.user(user).reason("manual retry"));
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

    // --- the sample program ---------------------------------------------------------------------

    /**
     * Runs the sample program on {@code store}: five files of three priorities, one moved to the
     * front, the queue paused while the first compression runs and resumed after it, and one file
     * that fails once with a temporary I/O error and is retried. Prints what happens and a summary.
     *
     * @return 0 when every task completed with never more than one running, 1 otherwise
     */
    public static int run(Store store, PrintStream out) throws InterruptedException {
        out.println("compression host: one compression at a time, priorities, pause, retries");
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicInteger runningNow = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        List<String> starts = Collections.synchronizedList(new ArrayList<>());
        Compressor deflate = deflater();
        Compressor compressor = ctx -> {
            String input = String.valueOf(ctx.task().attribute(INPUT));
            int now = runningNow.incrementAndGet();
            maxRunning.accumulateAndGet(now, Math::max);
            starts.add(input);
            try {
                if (starts.size() == 1) {
                    // the first compression runs until the program has paused the queue
                    firstStarted.countDown();
                    if (!releaseFirst.await(10, TimeUnit.SECONDS)) throw new IOException("not released");
                }
                if (input.startsWith("video") && ctx.task().record().attempts() == 1) {
                    throw new IOException("the output drive is busy");
                }
                return deflate.compress(ctx);
            } finally {
                runningNow.decrementAndGet();
            }
        };
        CompressionHost host = new CompressionHost(store, Clock.system(), null, "compression-1", compressor, true, null);
        try {
            return host.program(out, firstStarted, releaseFirst, starts, maxRunning);
        } finally {
            releaseFirst.countDown();
            host.close();
        }
    }

    private int program(PrintStream out, CountDownLatch firstStarted, CountDownLatch releaseFirst, List<String> starts,
                        AtomicInteger maxRunning) throws InterruptedException {
        try (Tasks.Conditions conditions = new Tasks.Conditions(engine)) {
            start();
            pauseQueue();
            out.println("queue paused while adding files");
            long photos = add("photos.tar", 3 << 20, CompressionTask.NORMAL);
            long backup = add("backup.img", 2 << 20, CompressionTask.LOW);
            long report = add("report.pdf", 1 << 20, CompressionTask.HIGH);
            long video = add("video.mov", 2 << 20, CompressionTask.NORMAL);
            long notes = add("notes.txt", 1 << 19, CompressionTask.NORMAL);
            List<Long> all = List.of(photos, backup, report, video, notes);
            for (long id : all) out.println("  added #" + id + " " + task(id).attribute(INPUT) + " (" + priority(task(id)) + ")");
            startNow(notes);
            out.println("start now: #" + notes + " notes.txt to the front of Normal");
            resumeQueue();
            out.println("queue resumed");
            if (!firstStarted.await(10, TimeUnit.SECONDS)) {
                out.println("nothing started in time");
                return 1;
            }
            pauseQueue();
            out.println("#" + report + " report.pdf is " + task(report).state() + "; Pause Queue: it keeps running");
            releaseFirst.countDown();
            if (!conditions.await(() -> ENDED.contains(task(report).state()), Duration.ofSeconds(10))) {
                out.println("the first compression did not end in time");
                return 1;
            }
            long runningAfter = tasks().stream().filter(t -> t.state() == State.RUNNING).count();
            out.println("#" + report + " " + task(report).state() + "; queue " + (queue().paused() ? "paused" : "running") + ", "
                    + runningAfter + " running, " + tasks().stream().filter(t -> t.state() == State.QUEUED).count() + " waiting");
            resumeQueue();
            out.println("queue resumed");
            if (!conditions.await(() -> all.stream().allMatch(id -> ENDED.contains(task(id).state())), Duration.ofSeconds(20))) {
                out.println("the queue did not drain in time");
                return 1;
            }
            int completed = 0;
            for (long id : all) {
                Task<State> t = task(id);
                if (t.state() == State.COMPLETED) completed++;
                out.println(String.format(Locale.ROOT, "  #%d %-10s %-9s attempts %d, retries %d, %s -> %s bytes%s", id,
                        t.attribute(INPUT), t.state(), t.record().attempts(), t.record().retries(), t.attribute(SIZE),
                        t.attribute(OUTPUT_BYTES), t.record().lastError() == null ? "" : " (last error " + t.record().lastError().code() + ")"));
            }
            List<String> order;
            synchronized (starts) {
                order = List.copyOf(starts);
            }
            out.println("start order: " + String.join(", ", order));
            int low = order.indexOf("backup.img");
            if (low >= 0 && order.indexOf("video.mov") > low) {
                out.println("  backup.img (Low) started before video.mov (Normal), after " + low
                        + " consecutive higher-priority starts: anti-starvation");
            }
            Task<State> retried = task(video);
            out.println(String.format(Locale.ROOT, "summary: %d/%d completed, at most %d running at once, video.mov retried %d time(s), "
                    + "nothing started while paused: %s", completed, all.size(), maxRunning.get(), retried.record().retries(),
                    runningAfter == 0));
            return completed == all.size() && maxRunning.get() == 1 && runningAfter == 0 ? 0 : 1;
        }
    }

    private static String priority(Task<State> t) {
        int p = t.record().priority();
        return p >= CompressionTask.HIGH ? "High" : p <= CompressionTask.LOW ? "Low" : "Normal";
    }
}
