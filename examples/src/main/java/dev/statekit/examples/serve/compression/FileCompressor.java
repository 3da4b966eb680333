package dev.statekit.examples.serve.compression;

import dev.statekit.core.Task;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.examples.hosts.CompressionHost;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * The compression of one task: its input file, gzip-compressed ({@code java.util.zip}) into a
 * temporary file of the work area, then renamed atomically to its output name.
 *
 * <p>The output name is decided when the task first starts ({@link WorkFolder#decide}: the task's
 * {@code on_conflict} policy against the files there and the names other tasks reserved) and kept
 * for every later attempt, so the output exists once whatever crash comes in between. Between
 * blocks the worker records how far it has read ({@link WorkFolder#progress}) and checks whether it
 * is asked to stop (a cancellation, a shutdown past its grace, a lost lease): then it deletes its
 * temporary file and stops. A missing input is a fatal error ({@code INPUT_MISSING}), another I/O
 * error a temporary one, retried by the task's retry policy.
 */
final class FileCompressor implements CompressionHost.Compressor {
    /** The task attribute naming the conflict policy: rename, overwrite or skip. */
    static final String ON_CONFLICT = "on_conflict";
    /** The task attribute naming the output file, once written. */
    static final String OUTPUT = "output";
    /** The task attribute saying how a conflict with an existing output was settled. */
    static final String CONFLICT = "conflict";
    /** The task attribute of the progress written with the result, in percent. */
    static final String PROGRESS = "progress_percent";

    private static final int BLOCK = 64 * 1024;

    private final Path inputs;
    private final WorkFolder folder;
    private final long bytesPerSecond;
    private final boolean crashAfterPublish;
    private final @Nullable Path journal;

    /**
     * @param inputs            the input folder
     * @param folder            the output folder and its work area
     * @param bytesPerSecond    the most bytes read per second, 0 for no limit
     * @param crashAfterPublish halt the process right after an output was renamed into place, before its
     *                          success is recorded (to test the recovery from a crash at the worst moment)
     * @param journal           the file each compression appends its start and end to, or null for none
     */
    FileCompressor(Path inputs, WorkFolder folder, long bytesPerSecond, boolean crashAfterPublish, @Nullable Path journal) {
        this.inputs = inputs;
        this.folder = folder;
        this.bytesPerSecond = bytesPerSecond;
        this.crashAfterPublish = crashAfterPublish;
        this.journal = journal;
    }

    @Override
    public long compress(WorkContext<State> ctx) throws Exception {
        journal(ctx, "start", "");
        String outcome = "failed";
        try {
            Done done = compressOnce(ctx);
            outcome = done.outcome();
            return done.bytes();
        } catch (IOException e) {
            if (ctx.cancelled()) outcome = "stopped";
            throw e;
        } finally {
            journal(ctx, "end", " " + outcome);
        }
    }

    /**
     * Appends {@code EVENT TASK TOKEN OWNER TIME[ OUTCOME]} to the journal: one line per start and
     * end of a compression, from the worker itself, so a reader sees when compressions really ran
     * (a crash leaves a start without its end).
     */
    private void journal(WorkContext<State> ctx, String event, String outcome) throws IOException {
        Path file = journal;
        if (file == null) return;
        String line = event + " " + ctx.task().id() + " " + ctx.fencingToken() + " " + ctx.lease().owner() + " " + ctx.clock().now()
                + outcome + "\n";
        Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }

    /** A compression's output size and how it ended: {@code published NAME} or {@code skipped}. */
    private record Done(long bytes, String outcome) {}

    private Done compressOnce(WorkContext<State> ctx) throws Exception {
        String name = Objects.requireNonNull(ctx.task().attribute(CompressionHost.INPUT), "the task names no input");
        Path source = InputNames.resolve(inputs, name);
        if (!Files.isRegularFile(source)) throw new NoSuchFileException(name, null, "the input file is missing from " + inputs);
        try {
            return compressFile(ctx, source, name);
        } catch (NoSuchFileException e) {
            if (!Files.isRegularFile(source)) throw e;      // the input went away: fatal
            throw new IOException("a file or folder of the output went away: " + e.getMessage(), e);      // temporary
        }
    }

    private Done compressFile(WorkContext<State> ctx, Path source, String name) throws Exception {
        Task<State> task = ctx.task();
        long id = task.id();
        long token = ctx.fencingToken();
        folder.create();
        folder.removeStale(id, token);
        WorkFolder.Plan plan = folder.decide(id, token, name, task.attributes().getOrDefault(ON_CONFLICT, "rename"));
        if (plan.output() == null) {
            ctx.progress(CONFLICT, plan.conflict());
            ctx.progress(PROGRESS, "100");
            return new Done(0, "skipped");
        }
        Path temp = folder.temp(id, token);
        CountDownLatch stop = new CountDownLatch(1);
        ctx.onCancel(stop::countDown);
        boolean published = false;
        try {
            write(ctx, source, temp, stop);
            if (ctx.cancelled()) throw stopped(ctx);
            Path output = folder.publish(temp, plan.output());
            published = true;
            if (crashAfterPublish) Runtime.getRuntime().halt(CRASH_STATUS);
            ctx.progress(OUTPUT, plan.output());
            ctx.progress(CONFLICT, plan.conflict());
            ctx.progress(PROGRESS, "100");
            return new Done(Files.size(output), "published " + plan.output());
        } finally {
            if (!published) {
                Files.deleteIfExists(temp);
                folder.clearProgress(id, token);
            }
            // a published compression keeps showing 100 % until its success is recorded; the sweep deletes the record then
        }
    }

    /** The exit status of a process halted by {@code crashAfterPublish}. */
    static final int CRASH_STATUS = 75;

    private void write(WorkContext<State> ctx, Path source, Path temp, CountDownLatch stop) throws IOException, InterruptedException {
        long id = ctx.task().id();
        long token = ctx.fencingToken();
        long size = Files.size(source);
        int block = bytesPerSecond <= 0 ? BLOCK : (int) Math.max(1024, Math.min(BLOCK, bytesPerSecond / 20));
        byte[] buffer = new byte[block];
        Instant started = ctx.clock().now();
        long read = 0;
        int recorded = -1;
        folder.progress(id, token, 0, size);
        try (InputStream in = Files.newInputStream(source);
             OutputStream out = new GZIPOutputStream(new BufferedOutputStream(Files.newOutputStream(temp,
                     StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), BLOCK), BLOCK)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (ctx.cancelled()) throw stopped(ctx);
                out.write(buffer, 0, n);
                read += n;
                int percent = WorkFolder.percentOf(read, size);
                if (percent != recorded) {
                    folder.progress(id, token, read, size);
                    recorded = percent;
                }
                if (bytesPerSecond > 0) {
                    long due = read * 1000 / bytesPerSecond;
                    long spent = Duration.between(started, ctx.clock().now()).toMillis();
                    if (due > spent && stop.await(due - spent, TimeUnit.MILLISECONDS)) throw stopped(ctx);
                }
            }
        }
        folder.progress(id, token, read, read);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            channel.force(true);          // on disk before the rename makes it the output
        }
    }

    private static IOException stopped(WorkContext<State> ctx) {
        return new IOException("compression stopped: " + ctx.cancelReason());
    }
}
