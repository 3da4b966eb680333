package dev.statekit.examples.serve.compression;

import dev.statekit.store.TaskRecord;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The output folder and its work area {@value #WORK}, where a compression keeps what it needs to
 * be done once per task even across a crash:
 *
 * <ul>
 *   <li>{@code task-ID.plan}: the output name decided when the task first started (and how its
 *       conflict was settled). A task that runs again (after a crash, a retry) reuses it, so a
 *       compression cut after its output was renamed into place writes the same name again
 *       instead of a {@code -1} copy. A plan also reserves its name: another task renaming around
 *       a conflict skips it.</li>
 *   <li>{@code task-ID-TOKEN.gz.tmp}: the compressed data while it is written, renamed atomically to
 *       its output name when complete. {@code TOKEN} is the fencing token of the attempt's lease.</li>
 *   <li>{@code task-ID-TOKEN.progress}: how far the attempt has read ({@code read size}), for the
 *       task list of every process sharing the folder.</li>
 * </ul>
 *
 * A file of an attempt whose lease the task no longer holds (its worker died, was cancelled or
 * fenced) is left over; {@link #sweep} deletes those, and the plans of tasks that have ended for
 * good.
 */
final class WorkFolder {
    /** The work area's name inside the output folder. */
    static final String WORK = ".work";
    /** The longest suffix tried when renaming around a conflict. */
    static final int MAX_RENAMES = 10_000;

    private static final Pattern ATTEMPT_FILE = Pattern.compile("task-([0-9]{1,18})-([0-9]{1,18})\\..+");
    private static final Pattern PLAN_FILE = Pattern.compile("task-([0-9]{1,18})\\.plan");

    private final Path output;
    private final Path work;

    /** Opens (and creates) the output folder {@code output} and its work area. */
    WorkFolder(Path output) throws IOException {
        this.output = Files.createDirectories(output).toAbsolutePath().normalize();
        this.work = Files.createDirectories(this.output.resolve(WORK));
    }

    /** Creates the output folder and its work area again if they went away. */
    void create() throws IOException {
        Files.createDirectories(work);
    }

    /** Returns the output folder. */
    Path output() {
        return output;
    }

    /** Returns the work area. */
    Path work() {
        return work;
    }

    /**
     * How an output's name was decided.
     *
     * @param output   the output's file name in the output folder, or null when the task is skipped
     * @param conflict {@code none}, {@code renamed}, {@code overwritten} or {@code skipped}
     */
    record Plan(@Nullable String output, String conflict) {}

    /** Returns the temporary file of the attempt holding fencing token {@code token} of task {@code id}. */
    Path temp(long id, long token) {
        return work.resolve("task-" + id + "-" + token + ".gz.tmp");
    }

    private Path progressFile(long id, long token) {
        return work.resolve("task-" + id + "-" + token + ".progress");
    }

    private Path planFile(long id) {
        return work.resolve("task-" + id + ".plan");
    }

    /** Returns the plan of task {@code id}, if it started before. */
    Optional<Plan> plan(long id) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(planFile(id), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(new Plan(p.getProperty("output"), p.getProperty("conflict", "none")));
    }

    /**
     * Decides where the output of {@code input} goes under {@code policy} ({@code rename},
     * {@code overwrite} or {@code skip}) and writes the plan of task {@code id}, unless the task
     * has one already, which is returned as it is.
     */
    Plan decide(long id, long token, String input, String policy) throws IOException {
        Optional<Plan> planned = plan(id);
        if (planned.isPresent()) return planned.get();
        String target = input + ".gz";
        Set<String> reserved = reservedExcept(id);
        boolean taken = taken(target, reserved);
        Plan plan;
        switch (policy) {
            case "overwrite" -> plan = new Plan(target, taken ? "overwritten" : "none");
            case "skip" -> plan = taken ? new Plan(null, "skipped") : new Plan(target, "none");
            default -> {
                if (!taken) {
                    plan = new Plan(target, "none");
                } else {
                    plan = null;
                    for (int n = 1; n <= MAX_RENAMES && plan == null; n++) {
                        String candidate = renamed(input, n);
                        if (!taken(candidate, reserved)) plan = new Plan(candidate, "renamed");
                    }
                    if (plan == null) throw new IllegalStateException("no free output name for " + input + " up to -" + MAX_RENAMES);
                }
            }
        }
        Properties p = new Properties();
        if (plan.output() != null) p.setProperty("output", plan.output());
        p.setProperty("conflict", plan.conflict());
        Path temp = work.resolve("task-" + id + "-" + token + ".plan.tmp");
        try (Writer w = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
            p.store(w, null);
        }
        moveAtomically(temp, planFile(id));
        return plan;
    }

    private boolean taken(String name, Set<String> reserved) {
        return reserved.contains(name) || Files.exists(output.resolve(name), LinkOption.NOFOLLOW_LINKS);
    }

    /** Returns the output name of {@code input} with suffix {@code -n}: {@code report.txt} → {@code report-1.txt.gz}. */
    static String renamed(String input, int n) {
        int dot = input.lastIndexOf('.');
        if (dot <= 0) return input + "-" + n + ".gz";
        return input.substring(0, dot) + "-" + n + input.substring(dot) + ".gz";
    }

    /** Returns the output names the plans of other tasks than {@code id} reserve. */
    private Set<String> reservedExcept(long id) throws IOException {
        Set<String> names = new HashSet<>();
        try (DirectoryStream<Path> plans = Files.newDirectoryStream(work, "task-*.plan")) {
            for (Path f : plans) {
                Matcher m = PLAN_FILE.matcher(f.getFileName().toString());
                if (!m.matches() || Long.parseLong(m.group(1)) == id) continue;
                plan(Long.parseLong(m.group(1))).map(Plan::output).ifPresent(names::add);
            }
        }
        return names;
    }

    /** Publishes the complete temporary file {@code temp} as {@code name}: one atomic rename, replacing a file of that name. */
    Path publish(Path temp, String name) throws IOException {
        Path target = output.resolve(name);
        moveAtomically(temp, target);
        return target;
    }

    private static void moveAtomically(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the work area and the output folder must be on one file system: " + e.getMessage(), e);
        }
    }

    /** Records that the attempt holding {@code token} of task {@code id} has read {@code read} of {@code size} bytes. */
    void progress(long id, long token, long read, long size) throws IOException {
        Path temp = work.resolve("task-" + id + "-" + token + ".progress.tmp");
        Files.writeString(temp, read + " " + size, StandardCharsets.UTF_8);
        moveAtomically(temp, progressFile(id, token));
    }

    /** Returns how far the attempt holding {@code token} of task {@code id} has read, in percent, if it recorded any. */
    Optional<Integer> percent(long id, long token) {
        String text;
        try {
            text = Files.readString(progressFile(id, token), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return Optional.empty();
        }
        String[] parts = text.trim().split(" ");
        if (parts.length != 2) return Optional.empty();
        try {
            return Optional.of(percentOf(Long.parseLong(parts[0]), Long.parseLong(parts[1])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Returns {@code read} of {@code size} in whole percent, at most 100. */
    static int percentOf(long read, long size) {
        if (size <= 0) return 100;
        return (int) Math.min(100, read * 100 / size);
    }

    /** Deletes the progress record of the attempt holding {@code token} of task {@code id}. */
    void clearProgress(long id, long token) {
        deleteQuietly(progressFile(id, token));
    }

    /** Deletes the files that attempts of task {@code id} other than the one holding {@code token} left behind. */
    void removeStale(long id, long token) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(work, "task-" + id + "-*")) {
            for (Path f : files) {
                Matcher m = ATTEMPT_FILE.matcher(f.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(1)) == id && Long.parseLong(m.group(2)) != token) deleteQuietly(f);
            }
        }
    }

    /**
     * Deletes what is left over: the files of attempts whose lease the task no longer holds, and
     * the plans of tasks that ended for good ({@code finished}) or no longer exist.
     *
     * @param lookup   reads a task from the store
     * @param finished the states a task never leaves
     * @return how many files were deleted
     */
    int sweep(LongFunction<Optional<TaskRecord>> lookup, Set<String> finished) {
        int deleted = 0;
        List<Path> files;
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(work, "task-*")) {
            files = new java.util.ArrayList<>();
            for (Path f : listing) files.add(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            Matcher attempt = ATTEMPT_FILE.matcher(name);
            Matcher plan = PLAN_FILE.matcher(name);
            if (attempt.matches()) {
                long token = Long.parseLong(attempt.group(2));
                Optional<TaskRecord> r = lookup.apply(Long.parseLong(attempt.group(1)));
                boolean current = r.isPresent() && r.get().lease() != null && r.get().lease().fencingToken() == token;
                if (!current && deleteQuietly(f)) deleted++;
            } else if (plan.matches()) {
                Optional<TaskRecord> r = lookup.apply(Long.parseLong(plan.group(1)));
                if ((r.isEmpty() || finished.contains(r.get().state())) && deleteQuietly(f)) deleted++;
            }
        }
        return deleted;
    }

    private static boolean deleteQuietly(Path f) {
        try {
            return Files.deleteIfExists(f);
        } catch (IOException e) {
            return false;
        }
    }
}
