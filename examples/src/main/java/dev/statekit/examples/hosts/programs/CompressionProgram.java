package dev.statekit.examples.hosts.programs;

import dev.statekit.core.Task;
import dev.statekit.core.spi.Clock;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.examples.hosts.CompressionHost;
import dev.statekit.store.Store;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The compression sample program: five files of three priorities on a {@link CompressionHost},
 * one moved to the front, the queue paused while the first compression runs and resumed after it,
 * and one file that fails once with a temporary I/O error and is retried.
 */
public final class CompressionProgram {
    private static final Set<State> ENDED = EnumSet.of(State.COMPLETED, State.FAILED, State.CANCELED);

    private CompressionProgram() {}

    /**
     * Runs the sample program on {@code store}. Prints what happens and a summary.
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
        CompressionHost.Compressor deflate = CompressionHost.deflater();
        CompressionHost.Compressor compressor = ctx -> {
            String input = String.valueOf(ctx.task().attribute(CompressionHost.INPUT));
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
        try (Conditions conditions = new Conditions(host.engine())) {
            return program(host, conditions, out, firstStarted, releaseFirst, starts, maxRunning);
        } finally {
            releaseFirst.countDown();
            host.close();
        }
    }

    // One scripted run read top to bottom, each step printed as it happens: kept in one method on purpose.
    private static int program(CompressionHost host, Conditions conditions, PrintStream out, CountDownLatch firstStarted,
                               CountDownLatch releaseFirst, List<String> starts, AtomicInteger maxRunning) throws InterruptedException {
        host.start();
        host.pauseQueue();
        out.println("queue paused while adding files");
        long photos = host.add("photos.tar", 3 << 20, CompressionTask.NORMAL);
        long backup = host.add("backup.img", 2 << 20, CompressionTask.LOW);
        long report = host.add("report.pdf", 1 << 20, CompressionTask.HIGH);
        long video = host.add("video.mov", 2 << 20, CompressionTask.NORMAL);
        long notes = host.add("notes.txt", 1 << 19, CompressionTask.NORMAL);
        List<Long> all = List.of(photos, backup, report, video, notes);
        for (long id : all) {
            out.println("  added #" + id + " " + host.task(id).attribute(CompressionHost.INPUT) + " (" + priority(host.task(id)) + ")");
        }
        host.startNow(notes, "alice");
        out.println("start now: #" + notes + " notes.txt to the front of Normal");
        host.resumeQueue();
        out.println("queue resumed");
        if (!firstStarted.await(10, TimeUnit.SECONDS)) {
            out.println("nothing started in time");
            return 1;
        }
        host.pauseQueue();
        out.println("#" + report + " report.pdf is " + host.task(report).state() + "; Pause Queue: it keeps running");
        releaseFirst.countDown();
        if (!conditions.await(() -> ENDED.contains(host.task(report).state()), Duration.ofSeconds(10))) {
            out.println("the first compression did not end in time");
            return 1;
        }
        long runningAfter = host.tasks().stream().filter(t -> t.state() == State.RUNNING).count();
        out.println("#" + report + " " + host.task(report).state() + "; queue " + (host.queue().paused() ? "paused" : "running") + ", "
                + runningAfter + " running, " + host.tasks().stream().filter(t -> t.state() == State.QUEUED).count() + " waiting");
        host.resumeQueue();
        out.println("queue resumed");
        if (!conditions.await(() -> all.stream().allMatch(id -> ENDED.contains(host.task(id).state())), Duration.ofSeconds(20))) {
            out.println("the queue did not drain in time");
            return 1;
        }
        int completed = 0;
        for (long id : all) {
            Task<State> t = host.task(id);
            if (t.state() == State.COMPLETED) completed++;
            out.println(String.format(Locale.ROOT, "  #%d %-10s %-9s attempts %d, retries %d, %s -> %s bytes%s", id,
                    t.attribute(CompressionHost.INPUT), t.state(), t.record().attempts(), t.record().retries(),
                    t.attribute(CompressionHost.SIZE), t.attribute(CompressionHost.OUTPUT_BYTES),
                    t.record().lastError() == null ? "" : " (last error " + t.record().lastError().code() + ")"));
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
        Task<State> retried = host.task(video);
        out.println(String.format(Locale.ROOT, "summary: %d/%d completed, at most %d running at once, video.mov retried %d time(s), "
                + "nothing started while paused: %s", completed, all.size(), maxRunning.get(), retried.record().retries(),
                runningAfter == 0));
        return completed == all.size() && maxRunning.get() == 1 && runningAfter == 0 ? 0 : 1;
    }

    private static String priority(Task<State> t) {
        int p = t.record().priority();
        return p >= CompressionTask.HIGH ? "High" : p <= CompressionTask.LOW ? "Low" : "Normal";
    }
}
