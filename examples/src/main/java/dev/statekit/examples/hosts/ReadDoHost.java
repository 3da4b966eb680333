package dev.statekit.examples.hosts;

import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.Outcome;
import dev.statekit.core.QueueOptions;
import dev.statekit.core.Task;
import dev.statekit.core.TaskRuntime;
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
 * export and writes no second file.
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
     * @param outcome the transition (a replay when the export key was used before)
     * @param file    the exported file; null when the export was refused or failed
     * @param written whether this call wrote the file
     */
    public record Export(Outcome<State> outcome, @Nullable String file, boolean written) {}

    private static final Map<String, String> ARTIFACT_OF_STEP = Map.of("summarize", "summary", "score", "score", "todos", "todos", "card", "card");
    private static final Set<State> FAILED = EnumSet.of(State.FAILED_EXTRACTION, State.FAILED_AI, State.FAILED_EXPORT);

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final Steps steps;
    private final ErrorClassifier classifier = ErrorClassifier.defaults();
    private final Map<String, String> files = new ConcurrentHashMap<>();
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
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        this.steps = Objects.requireNonNull(steps, "steps");
        TaskRuntime.Builder b = TaskRuntime.builder(engine).owner(owner).workers(2)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).seed(1)
                .register(ReadDoItem.MACHINE, QUEUE, this::work, QueueOptions.defaults());
        if (executor != null) b.executor(executor);
        this.runtime = b.build();
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
        Created<State> c = engine.create(ReadDoItem.MACHINE, TaskSpec.defaults().queue(QUEUE).attribute(URL, url).idempotencyKey(captureId));
        if (c.created()) {
            engine.fire(ReadDoItem.MACHINE, c.task().id(), Event.ENQUEUE, Command.system().reason("auto-enqueue")).orElseThrow();
        }
        return c;
    }

    /** {@code POST /items/:id/process}: process, retry or regenerate; the same request id queues once. */
    public Outcome<State> process(long id, String requestId, String user) {
        return engine.fire(ReadDoItem.MACHINE, id, Event.PROCESS, Command.user(user).reason("POST /process").idempotencyKey(requestId));
    }

    /** {@code POST /items/:id/archive}. */
    public Outcome<State> archive(long id, String user) {
        return engine.fire(ReadDoItem.MACHINE, id, Event.ARCHIVE, Command.user(user).reason("POST /archive"));
    }

    /**
     * {@code POST /items/:id/export} with its {@code export_key}: renders the card into a file and
     * ships the item. The same key returns the first export and writes nothing; an item that may
     * not be exported is refused before anything is written.
     */
    public Export export(long id, String exportKey, String user) {
        Optional<HistoryEntry> prior = engine.store().findCommand(id, exportKey);
        if (prior.isPresent()) {
            Outcome<State> replay = engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_SUCCEEDED,
                    Command.user(user).reason("POST /export").idempotencyKey(exportKey));
            return new Export(replay, item(id).attribute(exportFileOf(exportKey)), false);    // read from the store, in any process
        }
        Task<State> item = item(id);
        if (!ReadDoItem.MACHINE.permits(item.state(), Event.EXPORT_SUCCEEDED)) {
            return new Export(engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_SUCCEEDED, Command.user(user).idempotencyKey(exportKey)),
                    null, false);
        }
        boolean[] written = {false};
        String file = files.computeIfAbsent(exportKey, k -> {
            written[0] = true;
            filesWritten.incrementAndGet();
            return "exports/item-" + id + "-" + k + ".md";
        });
        Outcome<State> o = engine.fire(ReadDoItem.MACHINE, id, Event.EXPORT_SUCCEEDED,
                Command.user(user).reason("POST /export").idempotencyKey(exportKey).set(EXPORT_FILE, file).set(exportFileOf(exportKey), file));
        if (o instanceof Outcome.Applied<State> a && a.replayed()) {
            return new Export(o, a.task().attribute(exportFileOf(exportKey)), false);    // another process exported it meanwhile
        }
        return new Export(o, o.isApplied() ? file : null, written[0]);
    }

    /** The item attribute that keeps the file an export under {@code exportKey} wrote, so that a replay anywhere returns it. */
    public static String exportFileOf(String exportKey) {
        return EXPORT_FILE + ":" + exportKey;
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
        for (String step : STEPS) {
            if (ctx.cancelled()) return WorkResult.snooze(Duration.ZERO);
            String produced;
            try {
                produced = steps.run(step, item, runId);
            } catch (StepException e) {
                return failed(new WorkResult.Failure(e.code(), String.valueOf(e.getMessage()), e.retryable(), step));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return failed(new WorkResult.Failure("INTERRUPTED", "the step was interrupted", true, step));
            } catch (Exception e) {
                return failed(classifier.classify(e).atStep(step));
            }
            String artifact = ARTIFACT_OF_STEP.get(step);
            if (artifact != null) {
                artifacts.put(artifact, produced);
                artifacts.put(ReadDoItem.artifactKey(artifact), runId);
            }
        }
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

    /** Returns every item of the store. */
    public List<Task<State>> items() {
        return Tasks.all(engine, ReadDoItem.MACHINE, TaskQuery.all());
    }
}
