package dev.statekit.examples.serve.compression;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Created;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.examples.hosts.CompressionHost;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.Exchange;
import dev.statekit.examples.serve.Fires;
import dev.statekit.examples.serve.Idempotency;
import dev.statekit.examples.serve.JsonBody;
import dev.statekit.examples.serve.Options;
import dev.statekit.examples.serve.Reply;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import dev.statekit.examples.serve.SystemService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code examples serve compression}: the compression queue of seed 004, which compresses real
 * files one at a time.
 *
 * <p>The files to compress are in the input folder ({@code --input}, default {@code DATA/input});
 * each task gzips one of them into the output folder ({@code --output}, default
 * {@code DATA/output}) as {@code NAME.gz} (see {@link FileCompressor}). The queue is the
 * {@link CompressionHost}'s: concurrency 1 in the store (one compression at a time across every
 * process on it), priority then FIFO, pause, stop-after-current, a free-disk-space precondition
 * ({@code --min-free-bytes}), retries of temporary errors, and recovery of a compression cut by a
 * crash ({@code --auto-recover}). Its HTTP API is under {@code /api/tasks}, {@code /api/queue} and
 * {@code /api/admin/disk}; docs/services/compression.md describes it.
 */
public final class CompressionService extends SystemService {
    /** The system's name on the command line. */
    public static final String NAME = "compression";
    /** The conflict policies of a task's output. */
    static final Set<String> POLICIES = new LinkedHashSet<>(List.of("rename", "overwrite", "skip"));
    /** The priorities of a task. */
    /** What adding a file does when a task of the same input and output target has not ended: merge into it (default), or add anyway. */
    static final Set<String> DUPLICATES = new LinkedHashSet<>(List.of("merge", "add"));
    /** The priorities of a task. */
    static final Set<String> PRIORITIES = new LinkedHashSet<>(List.of("high", "normal", "low"));
    /** The most tasks one batch may add. */
    static final int MAX_BATCH = 500;
    /** How often leftovers of the work area are swept. */
    static final Duration SWEEP_INTERVAL = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(CompressionService.class);
    private static final Set<String> FINISHED = Set.of(State.COMPLETED.name(), State.CANCELED.name());

    // the service's own options: name, value, default and description, listed by `serve --help` and parsed by `serve`
    static final Options.Option<String> INPUT = Options.path("input", "DIR", "input", "the folder of the files to compress");
    static final Options.Option<String> OUTPUT = Options.path("output", "DIR", "output", "the folder of the .gz files");
    static final Options.Option<Long> MIN_FREE_BYTES = Options.number("min-free-bytes", 0, 0, Long.MAX_VALUE,
            "free bytes the output disk keeps beyond a file's size, else the task waits BLOCKED");
    static final Options.Option<Boolean> AUTO_RECOVER = Options.bool("auto-recover", true,
            "a compression cut by a crash runs again once at the front, or fails");
    static final Options.Option<Long> THROTTLE = Options.number("throttle-bytes-per-second", 0, 0, 1L << 40,
            "read at most this many bytes a second, 0 for no limit");
    static final Options.Option<Long> LEASE_SECONDS = Options.number("lease-seconds", 30, 2, 3600,
            "a compression's lease: how soon another process takes over after a crash");
    static final Options.Option<Long> STOP_GRACE_SECONDS = Options.number("stop-grace-seconds", 10, 0, 3600,
            "on SIGTERM, how long the running compression may take to finish");
    static final Options.Option<String> JOURNAL = Options.text("journal", "FILE", null,
            "a file (relative to DATA) each compression appends its start and end to (default none)");
    static final Options.Option<Boolean> CRASH_AFTER_PUBLISH = Options.bool("crash-after-publish", false,
            "halt right after an output is renamed into place, before it is recorded (crash tests)");

    /** The factory of {@code examples serve compression}. */
    public static final Service.Factory FACTORY = new SystemService.Factory(NAME,
            "seed 004: a queue that gzips files of a folder one at a time (priorities, pause, disk check, crash recovery)",
            Options.of(INPUT, OUTPUT, MIN_FREE_BYTES, AUTO_RECOVER, THROTTLE, LEASE_SECONDS, STOP_GRACE_SECONDS, JOURNAL, CRASH_AFTER_PUBLISH),
            CompressionService::new);

    /** The key of an added task or batch, a body field as seed 004 names it. */
    static final Idempotency IDEMPOTENCY_KEY = Idempotency.field("idempotency_key", 200);

    private final CompressionHost host;
    private final Path inputs;
    private final WorkFolder folder;
    private final AtomicLong minFreeBytes;

    /** What the service is built of, from its options. */
    private record Parts(Path inputs, WorkFolder folder, AtomicLong minFreeBytes, Duration stopGrace, CompressionHost host) {}

    private CompressionService(ServeContext context) throws IOException {
        this(parts(context));
    }

    private CompressionService(Parts parts) {
        super(new Host(parts.host().engine(), parts.host().runtime(), parts.host()::start, parts.host()::close), List.of(parts.host().machine()),
                List.of(CompressionHost.QUEUE), parts.stopGrace());
        this.host = parts.host();
        this.inputs = parts.inputs();
        this.folder = parts.folder();
        this.minFreeBytes = parts.minFreeBytes();
        every("compression-sweep", SWEEP_INTERVAL, this::sweep);
    }

    private static Parts parts(ServeContext context) throws IOException {
        Path inputs = Files.createDirectories(context.path(INPUT)).toAbsolutePath().normalize();
        WorkFolder folder = new WorkFolder(context.path(OUTPUT));
        AtomicLong minFreeBytes = new AtomicLong(context.get(MIN_FREE_BYTES));
        @Nullable Path journal = context.find(JOURNAL).isPresent() ? context.dataDir().resolve(context.find(JOURNAL).get()) : null;
        FileCompressor compressor = new FileCompressor(inputs, folder, context.get(THROTTLE), context.get(CRASH_AFTER_PUBLISH), journal);
        CompressionHost host = new CompressionHost(context.store(), context.clock(), null, context.owner(), compressor, context.get(AUTO_RECOVER),
                () -> usableBytes(folder) - minFreeBytes.get(), Duration.ofSeconds(context.get(LEASE_SECONDS)), context.soleOwner());
        return new Parts(inputs, folder, minFreeBytes, Duration.ofSeconds(context.get(STOP_GRACE_SECONDS)), host);
    }

    /** Returns the free bytes of the output folder's disk available to this process; 0 when it cannot be read. */
    private long usableBytes() {
        return usableBytes(folder);
    }

    private static long usableBytes(WorkFolder folder) {
        try {
            return Files.getFileStore(folder.output()).getUsableSpace();
        } catch (IOException e) {
            log.warn("cannot read the free space of {}: {}", folder.output(), e.toString());
            return 0;
        }
    }

    /** Deletes the work area's leftovers: files of attempts that no longer hold their task's lease, plans of ended tasks. */
    private void sweep() {
        try {
            int deleted = folder.sweep(id -> host.operations().task(id), FINISHED);
            if (deleted > 0) log.debug("swept {} leftover files from {}", deleted, folder.work());
        } catch (RuntimeException e) {
            log.warn("sweeping {} failed: {}", folder.work(), e.toString());
        }
    }

    @Override
    public void routes(Router router) {
        router.get("/api/tasks", this::list)
                .post("/api/tasks", this::add)
                .post("/api/tasks/batch", this::addBatch)
                .get("/api/tasks/{id}", this::get)
                .get("/api/tasks/{id}/history", this::history)
                .post("/api/tasks/{id}/cancel", this::cancel)
                .post("/api/tasks/{id}/retry", this::retry)
                .post("/api/tasks/{id}/skip", this::skip)
                .post("/api/tasks/{id}/pause", x -> hold(x, true))
                .post("/api/tasks/{id}/resume", x -> hold(x, false))
                .post("/api/tasks/{id}/move-to-front", this::moveToFront)
                .post("/api/tasks/{id}/priority", this::priority)
                .post("/api/tasks/{id}/reorder", this::reorder)
                .get("/api/queue", x -> Reply.ok(queueView()))
                .post("/api/queue/pause", x -> queueControl(x, host::pauseQueue, "pauses"))
                .post("/api/queue/resume", x -> queueControl(x, host::resumeQueue, "resumes"))
                .post("/api/queue/stop-after-current", x -> queueControl(x, host::stopAfterCurrent, "stops after the current task of"))
                .get("/api/admin/disk", x -> Reply.ok(diskView()))
                .post("/api/admin/disk", this::setDisk);
    }

    // --- tasks ------------------------------------------------------------------------------

    private Reply list(Exchange x) {
        Optional<String> state = x.query("state");
        State filter = null;
        if (state.isPresent()) {
            filter = host.machine().state(state.get().toUpperCase(Locale.ROOT));
            if (filter == null) {
                throw new ApiException(400, "INVALID_QUERY", "state must be one of " + states() + ", not '"
                        + state.get() + "'", "state", null);
            }
        }
        List<Task<State>> ordered = TaskViews.inQueueOrder(host.tasks());
        List<Map<String, Object>> views = TaskViews.tasks(ordered, folder);
        if (filter != null) {
            String name = filter.name();
            views = views.stream().filter(v -> name.equals(v.get("state"))).toList();
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("count", views.size());
        body.put("tasks", views);
        return Reply.ok(body);
    }

    /** One task to add, as a request gave it. */
    private record NewFile(String input, long sizeBytes, String priority, String onConflict, boolean merge) {}

    private Reply add(Exchange x) {
        JsonBody body = x.body().requireOnly(Set.of("input", "priority", "on_conflict", "on_duplicate", "idempotency_key"));
        NewFile file = newFile(body.requireString("input", InputNames.MAX_LENGTH), body.oneOf("priority", PRIORITIES).orElse("normal"),
                body.oneOf("on_conflict", POLICIES).orElse("rename"), body.oneOf("on_duplicate", DUPLICATES).orElse("merge"), "input");
        Optional<String> key = IDEMPOTENCY_KEY.key(x);
        Created<State> created = enqueue(key.map(k -> "task:" + k).orElse(null), file, "idempotency_key");
        log.info("{} added task {} ({}){}", x.actor(), created.task().id(), file.input(), created.created() ? "" : " again (same key or merged)");
        return Reply.json(created.created() ? 201 : 200, view(created.task()));
    }

    private Reply addBatch(Exchange x) {
        JsonBody body = x.body().requireOnly(Set.of("tasks", "idempotency_key"));
        JsonNode items = body.node().get("tasks");
        if (items == null || items.isNull()) throw ApiException.badField("tasks", "is required");
        if (!items.isArray()) throw ApiException.badField("tasks", "must be a list of tasks");
        if (items.isEmpty() || items.size() > MAX_BATCH) throw ApiException.badField("tasks", "must hold 1 to " + MAX_BATCH + " tasks, not " + items.size());
        Optional<String> key = IDEMPOTENCY_KEY.key(x);
        List<NewFile> files = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) files.add(batchItem(items.get(i), "tasks[" + i + "]"));
        List<Map<String, Object>> views = new ArrayList<>();
        boolean any = false;
        for (int i = 0; i < files.size(); i++) {
            int index = i;
            Created<State> created = enqueue(key.map(k -> "batch:" + k + "#" + index).orElse(null), files.get(i), "idempotency_key");
            any |= created.created();
            views.add(view(created.task()));
        }
        log.info("{} added a batch of {} tasks{}", x.actor(), files.size(), any ? "" : " again (same key)");
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("message", "已入队 " + files.size() + " 项");
        reply.put("count", files.size());
        reply.put("tasks", views);
        return Reply.json(any ? 201 : 200, reply);
    }

    private NewFile batchItem(JsonNode item, String field) {
        if (!item.isObject()) throw ApiException.badField(field, "must be an object with input, priority, on_conflict and on_duplicate");
        for (var it = item.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!Set.of("input", "priority", "on_conflict", "on_duplicate").contains(name)) {
                throw new ApiException(400, "UNKNOWN_FIELD", field + "." + name
                        + ": unknown field; known fields: input, priority, on_conflict, on_duplicate",
                        field + "." + name, null);
            }
        }
        String input = text(item, field + ".input", true);
        String priority = choice(item, field + ".priority", PRIORITIES, "normal");
        String policy = choice(item, field + ".on_conflict", POLICIES, "rename");
        String duplicate = choice(item, field + ".on_duplicate", DUPLICATES, "merge");
        return newFile(Objects.requireNonNull(input), priority, policy, duplicate, field + ".input");
    }

    private static @Nullable String text(JsonNode item, String field, boolean required) {
        JsonNode n = item.get(field.substring(field.lastIndexOf('.') + 1));
        if (n == null || n.isNull()) {
            if (required) throw ApiException.badField(field, "is required");
            return null;
        }
        if (!n.isTextual() || n.textValue().isBlank()) throw ApiException.badField(field, "must be a non-blank string");
        return n.textValue();
    }

    private static String choice(JsonNode item, String field, Set<String> values, String fallback) {
        String value = text(item, field, false);
        if (value == null) return fallback;
        for (String v : values) if (v.equalsIgnoreCase(value)) return v;
        throw ApiException.badField(field, "must be one of " + String.join(", ", values) + ", not '" + value + "'");
    }

    /** Checks the input file of a new task: a regular file inside the input folder. */
    private NewFile newFile(String input, String priority, String onConflict, String onDuplicate, String field) {
        Path file;
        try {
            file = InputNames.resolve(inputs, input);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField(field, e.getMessage());
        }
        try {
            Path real = file.toRealPath();
            if (!real.startsWith(inputs.toRealPath())) throw ApiException.badField(field, "leads out of the input folder");
            if (!Files.isRegularFile(real)) throw ApiException.badField(field, "is not a regular file");
            return new NewFile(input, Files.size(real), priority, onConflict, onDuplicate.equals("merge"));
        } catch (NoSuchFileException e) {
            throw new ApiException(400, "INPUT_NOT_FOUND", field + ": no file '" + input + "' in the input folder", field, null);
        } catch (IOException e) {
            throw ApiException.badField(field, "cannot be read: " + e.getMessage());
        }
    }

    /**
     * Adds one file, merged with a task of the same input and output policy that has not ended (the
     * seed's duplicate rule: the same input and output target are one task): the unique key is the
     * input name and its {@code on_conflict} policy, which together name the output target.
     */
    private Created<State> enqueue(@Nullable String key, NewFile file, String keyField) {
        String uniqueKey = file.merge() ? file.input() + " -> " + file.onConflict() : null;
        Created<State> created = host.add(key, uniqueKey, file.input(), file.sizeBytes(), TaskViews.priority(file.priority()),
                Map.of(FileCompressor.ON_CONFLICT, file.onConflict()));
        Task<State> t = created.task();
        if (!created.created() && (!file.input().equals(t.attribute(CompressionHost.INPUT))
                || !file.onConflict().equals(t.attribute(FileCompressor.ON_CONFLICT)))) {
            throw new ApiException(409, "IDEMPOTENCY_KEY_REUSED", keyField + " was used for task " + t.id() + " of another input or policy",
                    keyField, null);
        }
        return created;
    }

    private Reply get(Exchange x) {
        return Reply.ok(view(find(x.id("id"))));
    }

    private Reply history(Exchange x) {
        long id = find(x.id("id")).id();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("history", host.engine().history(id).stream().map(TaskViews::history).toList());
        return Reply.ok(body);
    }

    private Reply cancel(Exchange x) {
        long id = x.id("id");
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        find(id);
        CancelResult<State> result = host.cancel(id, actor);
        if (result.status() == CancelResult.Status.REFUSED) throw Fires.refusal(host.machine(), (Outcome.Refused<?>) Objects.requireNonNull(result.outcome()));
        log.info("{} cancels task {}: {}", actor, id, result.status());
        Map<String, Object> body = view(find(id));
        body.put("cancel", result.status() == CancelResult.Status.REQUESTED ? "requested" : "canceled");
        return Reply.json(result.status() == CancelResult.Status.REQUESTED ? 202 : 200, body);
    }

    private Reply retry(Exchange x) {
        long id = x.id("id");
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        find(id);
        Outcome<State> o = host.retry(id, actor);
        if (o instanceof Outcome.Refused<State> refused) throw Fires.refusal(host.machine(), refused);
        log.info("{} retries task {}", actor, id);
        return Reply.ok(view(find(id)));
    }

    private Reply skip(Exchange x) {
        long id = x.id("id");
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        find(id);
        Outcome<State> o = host.skip(id, actor);
        if (o instanceof Outcome.Refused<State> refused) throw Fires.refusal(host.machine(), refused);
        log.info("{} skips task {}", actor, id);
        return Reply.ok(view(find(id)));
    }

    /** Holds a queued task (it keeps its place and is passed over) or releases it; a running compression cannot be paused. */
    private Reply hold(Exchange x, boolean hold) {
        long id = x.id("id");
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        find(id);
        Outcome<State> o = hold ? host.hold(id, actor) : host.release(id, actor);
        if (o instanceof Outcome.Refused<State> refused) throw Fires.refusal(host.machine(), refused);
        log.info("{} {} task {}", actor, hold ? "holds" : "releases", id);
        return Reply.ok(view(find(id)));
    }

    private Reply moveToFront(Exchange x) {
        long id = x.id("id");
        x.body().requireOnly(Set.of());
        waiting(find(id), "moved to the front");
        host.startNow(id, x.actor());
        log.info("{} moves task {} to the front of its priority", x.actor(), id);
        return Reply.ok(view(find(id)));
    }

    private Reply priority(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(Set.of("priority"));
        String priority = body.oneOf("priority", PRIORITIES).orElseThrow(() -> ApiException.badField("priority", "is required"));
        waiting(find(id), "given another priority");
        host.setPriority(id, TaskViews.priority(priority), x.actor());
        log.info("{} sets the priority of task {} to {}", x.actor(), id, priority);
        return Reply.ok(view(find(id)));
    }

    private Reply reorder(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(Set.of("before_id"));
        long before = body.integer("before_id", 1, 999_999_999_999_999_999L).orElseThrow(() -> ApiException.badField("before_id", "is required"));
        if (before == id) throw ApiException.badField("before_id", "must be another task than " + id);
        Task<State> task = find(id);
        Task<State> other = host.engine().find(host.machine(), before).orElseThrow(() -> ApiException.notFound("task", before));
        waiting(task, "reordered");
        waiting(other, "the place of another task");
        if (task.record().priority() != other.record().priority()) {
            throw new ApiException(409, "DIFFERENT_PRIORITY", "task " + id + " is " + TaskViews.priority(task.record().priority()) + " and task "
                    + before + " is " + TaskViews.priority(other.record().priority())
                    + "; a task moves among the tasks of its priority (change its priority first)", "before_id",
                    Fires.userEvents(host.machine(), task.state().name()));
        }
        host.moveBefore(id, before, x.actor());
        log.info("{} moves task {} before task {}", x.actor(), id, before);
        return Reply.ok(view(find(id)));
    }

    /** Refuses (409) to change the place of a task that does not wait in the queue. */
    private void waiting(Task<State> task, String what) {
        if (TaskViews.WAITING.contains(task.state())) return;
        String code = task.state() == State.RUNNING ? CompressionTask.TASK_ALREADY_STARTED : CompressionTask.NOT_QUEUED;
        throw new ApiException(409, code, "task " + task.id() + " is " + task.state() + ": only a task waiting in the queue can be " + what,
                null, Fires.userEvents(host.machine(), task.state().name()));
    }

    private Task<State> find(long id) {
        return host.engine().find(host.machine(), id).orElseThrow(() -> ApiException.notFound("task", id));
    }

    private Map<String, Object> view(Task<State> task) {
        Integer position = TaskViews.IN_LINE.contains(task.state()) ? TaskViews.position(TaskViews.inQueueOrder(host.tasks()), task.id()) : null;
        return TaskViews.task(task, position, folder);
    }

    // --- queue and disk ---------------------------------------------------------------------

    private Map<String, Object> queueView() {
        return TaskViews.queue(host.queue(), host.tasks(), minFreeBytes.get(), usableBytes());
    }

    private Reply queueControl(Exchange x, Runnable control, String what) {
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        control.run();
        log.info("{} {} the queue", actor, what);
        return Reply.ok(queueView());
    }

    private Map<String, Object> diskView() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("output_folder", folder.output().toString());
        v.put("usable_bytes", usableBytes());
        v.put("min_free_bytes", minFreeBytes.get());
        v.put("scope", "this process");
        return v;
    }

    private Reply setDisk(Exchange x) {
        String actor = x.actor();
        JsonBody body = x.body().requireOnly(Set.of("min_free_bytes"));
        long value = body.integer("min_free_bytes", 0, Long.MAX_VALUE).orElseThrow(() -> ApiException.badField("min_free_bytes", "is required"));
        minFreeBytes.set(value);
        log.info("{} sets the free space to keep to {} bytes", actor, value);
        return Reply.ok(diskView());
    }

    // --- dashboard and lifecycle ------------------------------------------------------------

    /**
     * Fires a user event as the dashboard does: {@code CANCEL} through the runtime (a running task
     * is asked to stop, answered 202 {@code CANCEL_REQUESTED}), {@code RETRY} to the front of the
     * queue, the others through the engine.
     */
    @Override
    public Outcome<?> fireUser(Machine<?, ?> machine, long id, String event, String actor) {
        if (!machine.name().equals(host.machine().name())) return super.fireUser(machine, id, event, actor);
        if (event.equals(CompressionTask.Event.CANCEL.name())) {
            CancelResult<State> result = host.cancel(id, actor);
            if (result.status() == CancelResult.Status.REQUESTED) {
                throw new ApiException(202, "CANCEL_REQUESTED", "task " + id + " runs; its compression was asked to stop");
            }
            return Objects.requireNonNull(result.outcome());
        }
        if (event.equals(CompressionTask.Event.RETRY.name())) return host.retry(id, actor);
        return super.fireUser(machine, id, event, actor);
    }

    /** Returns the names of the tasks' states, for messages. */
    static String states() {
        return java.util.Arrays.stream(State.values()).map(Enum::name).collect(Collectors.joining(", "));
    }
}
