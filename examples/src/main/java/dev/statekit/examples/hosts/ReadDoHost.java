package dev.statekit.examples.hosts;

import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.Event;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The Read→Do host: captured items are queued and processed under a lease by a
 * {@link TaskRuntime} whose worker runs the pipeline (extract, summarize, score, todos, card), then
 * exported or archived by the user.
 *
 * <p>Each claim starts a run, {@code run-N} after the item's N-th lease; the worker writes every
 * artifact under that run id and reports the run id and the artifacts' run ids with its success,
 * so the READY gate admits only the artifacts of the current run. A failing step ends the item in
 * {@code FAILED_EXTRACTION} or {@code FAILED_AI} by the failed step, with its code, message and
 * whether it may be retried. A worker whose lease expired is fenced: another worker's run has
 * replaced it and its late result is discarded.
 *
 * <p>Capture is idempotent per {@code capture_id}, {@code POST /process} per
 * {@code process_request_id}, and export per {@code export_key}: the same key returns the same
 * export and writes no second file. The two command keys are recorded with a prefix
 * ({@value #PROCESS_KEY}, {@value #EXPORT_KEY}), so a request id never replays an export of the
 * same text or the other way round.
 *
 * <p>A captured item is enqueued durably: it is created with its not-before time set, and the
 * machine's run policy has every runtime fire {@code ENQUEUE} on a {@code CAPTURED} item whose
 * not-before time has come, so an item whose capture was not followed by its enqueue (the
 * process died in between) is enqueued by the next runtime that looks, in any process. The
 * capture enqueues at once too, so that no poll stands between a capture and its processing.
 */
public final class ReadDoHost implements AutoCloseable {
    /** The queue of the items. */
    public static final String QUEUE = "read-do-items";
    /** The steps of the pipeline, in order. */
    public static final List<String> STEPS = List.of("extract", "summarize", "score", "todos", "card");
    /** The item attribute holding the captured URL. */
    public static final String URL = "url";
    /** The item attribute holding the file of the latest export. */
    public static final String EXPORT_FILE = "export_file";
    /** The item attribute naming the runtime (lease owner) whose run made the item's artifacts. */
    public static final String PROCESSED_BY = "processed_by";
    /** The prefix of the idempotency key of {@code POST /process}'s command: {@code process:REQUEST_ID}. */
    public static final String PROCESS_KEY = "process:";
    /** The prefix of the idempotency key of an export's command: {@code export:EXPORT_KEY}. */
    public static final String EXPORT_KEY = "export:";

    /** Runs one step of the pipeline. */
    @FunctionalInterface
    public interface Steps {
        /**
         * Runs {@code step} for the item in run {@code runId} and returns what it produced.
         *
         * @throws StepException a failure with the contract's error code
         * @throws Exception any other failure (classified: timeouts and I/O are retryable)
         */
        String run(String step, Task<State> item, String runId) throws Exception;

        /**
         * Runs {@code step} with what the earlier steps of the same run produced, keyed by step
         * ({@code extract} gives the text the AI steps read). The default ignores them.
         */
        default String run(String step, Task<State> item, String runId, Map<String, String> earlier) throws Exception {
            return run(step, item, runId);
        }
    }

    /**
     * Writes the file of an export: the item's card rendered for one {@code export_key}.
     * Implementations write once per key: a second call with the same key (in this process or,
     * for files that outlive it, after a restart) writes nothing and returns the same file.
     */
    @FunctionalInterface
    public interface CardWriter {
        /**
         * Writes the card of {@code item} for {@code exportKey} unless it was written before.
         *
         * @throws StepException {@code EXPORT_RENDER_FAILED} or {@code EXPORT_WRITE_FAILED}
         */
        Written write(Task<State> item, String exportKey) throws StepException;
    }

    /**
     * A file a {@link CardWriter} answered with.
     *
     * @param file    where the export is, as shown to users
     * @param written whether this call wrote it (false: it was there already)
     */
    public record Written(String file, boolean written) {}

    /**
     * How the host's runtime runs.
     *
     * @param owner         the worker id, the lease owner
     * @param workers       how many items are processed at once
     * @param leaseDuration how long a lease lasts unless renewed (renewed every third of it)
     * @param pollInterval  how often the store is polled for work of other processes and expired leases
     * @param soleOwner     whether this host alone uses its store (an embedded H2 file): at start it recovers
     *                      every lease it finds, whoever held it, instead of waiting for their expiry
     */
    public record Settings(String owner, int workers, Duration leaseDuration, Duration pollInterval, boolean soleOwner) {
        /** Checks the settings. */
        public Settings {
            Objects.requireNonNull(owner, "owner");
            if (workers < 1) throw new IllegalArgumentException("workers must be at least 1, not " + workers);
            Objects.requireNonNull(leaseDuration, "leaseDuration");
            Objects.requireNonNull(pollInterval, "pollInterval");
        }

        /** Two workers, leases of 30 s, a poll every second, a store shared with other processes. */
        public static Settings of(String owner) {
            return new Settings(owner, 2, Duration.ofSeconds(30), Duration.ofSeconds(1), false);
        }
    }

    /** A step failure with one of the contract's error codes, for example {@code AI_SCHEMA_INVALID}. */
    public static final class StepException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String code;
        private final boolean retryable;

        /** Creates a failure with {@code code}, a user-facing {@code message}, and whether a retry may succeed. */
        public StepException(String code, String message, boolean retryable) {
            super(message);
            this.code = Objects.requireNonNull(code, "code");
            this.retryable = retryable;
        }

        /** Returns the error code. */
        public String code() {
            return code;
        }

        /** Returns whether a retry may succeed. */
        public boolean retryable() {
            return retryable;
        }
    }

    /**
     * The result of an export.
     *
     * @param outcome the transition (a replay when the export key was used before; the failure's
     *                transition when the export failed)
     * @param file    the exported file; null when the export was refused or failed
     * @param written whether this call wrote the file
     * @param failure the export's failure (step {@code export}), or null when it did not fail
     */
    public record Export(Outcome<State> outcome, @Nullable String file, boolean written, @Nullable TaskError failure) {
        /** An export that did not fail. */
        public Export(Outcome<State> outcome, @Nullable String file, boolean written) {
            this(outcome, file, written, null);
        }
    }

    private static final Map<String, String> ARTIFACT_OF_STEP = Map.of("summarize", "summary", "score", "score", "todos", "todos", "card", "card");
    private static final Set<State> FAILED = EnumSet.of(State.FAILED_EXTRACTION, State.FAILED_AI, State.FAILED_EXPORT);

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final TaskOperations operations;
    private final Clock clock;
    private final Steps steps;
    private final CardWriter cards;
    private final ErrorClassifier classifier = ErrorClassifier.defaults();
    private final AtomicInteger filesWritten = new AtomicInteger();

    /**
     * Creates a host over {@code store}.
     *
     * @param store    where the items live
     * @param clock    the clock of the engine and the runtime
     * @param executor runs the runtime's workers; null for a pool of its own
     * @param owner    the worker id, the lease owner
     * @param steps    the pipeline's steps
     */
    public ReadDoHost(Store store, Clock clock, @Nullable Executor executor, String owner, Steps steps) {
        this(store, clock, executor, Settings.of(owner), steps, memoryCards());
    }

    /**
     * Creates a host over {@code store} with its runtime's settings and the writer of its exports.
     *
     * @param store    where the items live
     * @param clock    the clock of the engine and the runtime
     * @param executor runs the runtime's workers; null for a pool of its own
     * @param settings the runtime's owner, workers, lease and poll interval
     * @param steps    the pipeline's steps
     * @param cards    writes the exports' files
     */
    public ReadDoHost(Store store, Clock clock, @Nullable Executor executor, Settings settings, Steps steps, CardWriter cards) {
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        this.operations = TaskOperations.of(engine);
        this.clock = clock;
        this.steps = Objects.requireNonNull(steps, "steps");
        this.cards = Objects.requireNonNull(cards, "cards");
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(settings.owner()).workers(settings.workers())
                .leaseDuration(settings.leaseDuration()).pollInterval(settings.pollInterval()).seed(1)
                .soleOwner(settings.soleOwner())
                .register(ReadDoItem.MACHINE, QUEUE, this::work, QueueOptions.defaults());
        if (executor != null) b.executor(executor);
        this.runtime = b.build();
    }

    /**
     * Returns the card writer of the sample program: it names a file per item and key and keeps
     * the names in memory, writing nothing to disk; a key seen before writes nothing.
     */
    public static CardWriter memoryCards() {
        Map<String, String> files = new ConcurrentHashMap<>();
        return (item, exportKey) -> {
            boolean[] written = {false};
            String file = files.computeIfAbsent(item.id() + "/" + exportKey, k -> {
                written[0] = true;
                return "exports/item-" + item.id() + "-" + exportKey + ".md";
            });
            return new Written(file, written[0]);
        };
    }

    /** Creates a host on the system clock with its own pool and the simulated pipeline. */
    public ReadDoHost(Store store) {
        this(store, Clock.system(), null, "read-do-worker-1", simulatedSteps());
    }

    /**
     * Returns the simulated pipeline of the sample program: it writes short artifacts, and the
     * todos step of an item whose URL contains {@code flaky} fails on its first run with
     * {@code AI_SCHEMA_INVALID} (two todos instead of 3..7).
     */
    public static Steps simulatedSteps() {
        return (step, item, runId) -> {
            String url = String.valueOf(item.attribute(URL));
            if (step.equals("todos") && url.contains("flaky") && runId.equals("run-1")) {
                throw new StepException("AI_SCHEMA_INVALID", "the todos must be 3 to 7, the model wrote 2", false);
            }
            return switch (step) {
                case "extract" -> "text of " + url;
                case "summarize" -> "summary of " + url;
                case "score" -> Integer.toString(40 + Math.floorMod(url.hashCode(), 60));
                case "todos" -> "read it; note the key claim; write a one-page memo";
                default -> "card(" + url + ")";
            };
        };
    }

    /** Returns the engine. */
    public TransitionEngine engine() {
        return engine;
    }

    /** Returns the runtime. */
    public TaskRuntime runtime() {
        return runtime;
    }

    /** Starts the runtime. */
    public void start() {
        runtime.start();
    }

    /**
     * {@code POST /capture}: stores the item and enqueues it. The same {@code captureId} returns
     * the same item and enqueues nothing.
     */
    public Created<State> capture(String url, String captureId) {
        return capture(url, Map.of(), captureId);
    }

    /**
     * {@code POST /capture}: stores the item with {@code attributes} (the intent, for example)
     * and enqueues it; the same {@code captureId} returns the same item and enqueues nothing, and
     * without one every call creates an item. The item is created due for its enqueue, which the
     * runtime of any process fires should this one die before it does.
     */
    public Created<State> capture(String url, Map<String, String> attributes, @Nullable String captureId) {
        TaskSpec spec = TaskSpec.defaults().queue(QUEUE).attributes(attributes).attribute(URL, url).notBefore(clock.now());
        Created<State> c = engine.create(ReadDoItem.MACHINE, captureId == null ? spec : spec.idempotencyKey(captureId));
        if (c.created()) {
            // Refused only when a runtime enqueued it first (or the user processed it): either way it is queued.
            engine.fire(ReadDoItem.MACHINE, c.task().id(), Event.ENQUEUE, Command.system().reason("auto-enqueue"));
        }
        return c;
    }

    /**
     * {@code POST /items/:id/process}: process, retry or regenerate; the same request id queues
     * once. Queued as a retry of the runtime: the item's attempts start again, so that an item
     * processed many times is not taken for one whose worker keeps dying.
     */
    public Outcome<State> process(long id, @Nullable String requestId, String user) {
        Command command = Command.user(user).reason("POST /process");
        if (requestId != null) command = command.idempotencyKey(PROCESS_KEY + requestId);
        return operations.retry(ReadDoItem.MACHINE, id, Event.PROCESS, false, command);
    }

    /** {@code POST /items/:id/archive}. */
    public Outcome<State> archive(long id, String user) {
        return archive(id, null, user);
    }

    /** {@code POST /items/:id/archive} with an {@code archive_reason}, or null for the default (USER_ARCHIVE, FAILURE_ARCHIVE from a failed state). */
    public Outcome<State> archive(long id, @Nullable String reason, String user) {
        Command command = Command.user(user).reason("POST /archive");
        if (reason != null) command = command.set(ReadDoItem.ARCHIVE_REASON, reason);
        return engine.fire(ReadDoItem.MACHINE, id, Event.ARCHIVE, command);
    }

    /**
     * {@code POST /items/:id/unarchive}: back to READY when the artifacts of the item's run are
     * complete and {@code regenerate} is false, else queued to be processed again (as a retry, like
     * {@link #process}).
     */
    public Outcome<State> unarchive(long id, boolean regenerate, String user) {
        Command command = Command.user(user).reason("POST /unarchive");
        if (regenerate) command = command.set(ReadDoItem.REGENERATE, "true");
        return operations.retry(ReadDoItem.MACHINE, id, Event.UNARCHIVE, false, command);
    }

    /**
     * {@code POST /items/:id/export} with its {@code export_key}: renders the card into a file and
     * ships the item. The same key returns the first export and writes nothing; an item that may
     * not be exported is refused before anything is written. A render or write failure is
     * reported as {@code EXPORT_FAILED} with the error (step {@code export}): the item goes to
     * {@code FAILED_EXPORT} (a shipped item stays shipped), and the same key may be tried again.
     *
     * <p>The file is written before the export is recorded; should the process die in between,
     * the same key finds the file there and records the export without writing again.
     */
    public Export export(long id, String exportKey, String user) {
        Command command = Command.user(user).reason("POST /export").idempotencyKey(EXPORT_KEY + exportKey);
        Optional<HistoryEntry> prior = operations.command(id, EXPORT_KEY + exportKey);
        if (prior.isPresent()) {
            Outcome<State> replay = engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_SUCCEEDED, command);
            return new Export(replay, item(id).attribute(exportFileOf(exportKey)), false);    // read from the store, in any process
        }
        Optional<Task<State>> found = engine.find(ReadDoItem.MACHINE, id);
        if (found.isEmpty() || !ReadDoItem.MACHINE.permits(found.get().state(), Event.EXPORT_SUCCEEDED)) {
            return new Export(engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_SUCCEEDED, command), null, false);
        }
        Written written;
        try {
            written = cards.write(found.get(), exportKey);
        } catch (StepException e) {
            TaskError error = new TaskError(e.code(), e.getMessage() == null || e.getMessage().isBlank() ? e.code() : e.getMessage(),
                    e.retryable(), "export");
            Outcome<State> failed = engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_FAILED,
                    Command.user(user).reason("POST /export failed").error(error));
            return new Export(failed, null, false, error);
        }
        if (written.written()) filesWritten.incrementAndGet();
        String file = written.file();
        Outcome<State> o = engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_SUCCEEDED,
                command.set(EXPORT_FILE, file).set(exportFileOf(exportKey), file));
        if (o instanceof Outcome.Applied<State> a && a.replayed()) {
            return new Export(o, a.task().attribute(exportFileOf(exportKey)), false);    // another process exported it meanwhile
        }
        return new Export(o, o.isApplied() ? file : null, written.written());
    }

    /** The item attribute that keeps the file an export under {@code exportKey} wrote, so that a replay anywhere returns it. */
    public static String exportFileOf(String exportKey) {
        return EXPORT_FILE + ":" + exportKey;
    }

    /** Returns the exports of an item, export key to file, in key order. */
    public static Map<String, String> exports(Task<State> item) {
        Map<String, String> exports = new java.util.TreeMap<>();
        String prefix = EXPORT_FILE + ":";
        item.attributes().asMap().forEach((k, v) -> {
            if (k.startsWith(prefix)) exports.put(k.substring(prefix.length()), v);
        });
        return exports;
    }

    /** Returns how many export files were written. */
    public int filesWritten() {
        return filesWritten.get();
    }

    /** Returns the item. */
    public Task<State> item(long id) {
        return Tasks.get(engine, ReadDoItem.MACHINE, id);
    }

    /** The worker: runs the pipeline in run {@code run-N} and reports its artifacts or its failed step. */
    private WorkResult work(WorkContext<State> ctx) {
        Task<State> item = ctx.task();
        // the claim's lease-acquire row counted the run and named it
        String runId = Objects.requireNonNull(item.attribute(ReadDoItem.RUN_ID), "run id");
        Map<String, String> artifacts = new LinkedHashMap<>();
        Map<String, String> earlier = new LinkedHashMap<>();
        for (String step : STEPS) {
            if (ctx.cancelled()) return WorkResult.snooze(Duration.ZERO);
            String produced;
            try {
                produced = steps.run(step, item, runId, Map.copyOf(earlier));
            } catch (StepException e) {
                return failed(new WorkResult.Failure(e.code(), String.valueOf(e.getMessage()), e.retryable(), step));
            } catch (InterruptedException e) {
                // the runtime is stopping: not a failure of the item, which goes back to the queue
                Thread.currentThread().interrupt();
                return WorkResult.snooze(Duration.ZERO);
            } catch (Exception e) {
                return failed(classifier.classify(e).atStep(step));
            }
            earlier.put(step, produced);
            String artifact = ARTIFACT_OF_STEP.get(step);
            if (artifact != null) {
                artifacts.put(artifact, produced);
                artifacts.put(ReadDoItem.artifactKey(artifact), runId);
            }
        }
        artifacts.put(PROCESSED_BY, ctx.lease().owner());
        return WorkResult.success(artifacts);
    }

    /** Returns the failure of a step, which the runtime records as the item's last error; the contract wants a message. */
    private static WorkResult failed(WorkResult.Failure f) {
        return f.message().isBlank() ? new WorkResult.Failure(f.code(), f.code(), f.retryable(), f.step()) : f;
    }

    /**
     * Returns the contract's failure fields of an item ({@code failed_step}, {@code error_code},
     * {@code message}, {@code retryable}), as the API shows them: taken from the item's last error
     * while it is {@code FAILED_*}, none otherwise. A failed state that implies its step
     * ({@code FAILED_EXTRACTION}: extract, {@code FAILED_EXPORT}: export) names it when the error
     * does not.
     */
    public static Map<String, String> failure(Task<State> item) {
        TaskError error = item.record().lastError();
        if (error == null || !FAILED.contains(item.state())) return Map.of();
        String step = error.step();
        if (step == null && item.state() == State.FAILED_EXTRACTION) step = "extract";
        if (step == null && item.state() == State.FAILED_EXPORT) step = "export";
        Map<String, String> fields = new LinkedHashMap<>();
        if (step != null) fields.put("failed_step", step);
        fields.put("error_code", error.code());
        fields.put("message", error.message());
        fields.put("retryable", Boolean.toString(error.retryable()));
        return fields;
    }

    /** Stops the runtime gracefully and waits for it. */
    @Override
    public void close() {
        runtime.close();
    }

    /** Returns the clock. */
    public Clock clock() {
        return clock;
    }

    /** Returns every item of the store. */
    public List<Task<State>> items() {
        return Tasks.all(engine, ReadDoItem.MACHINE, TaskQuery.all());
    }
}
