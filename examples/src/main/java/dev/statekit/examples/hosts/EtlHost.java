package dev.statekit.examples.hosts;

import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Authorizer;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Command;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.Retention;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.EtlTask.Event;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The ETL host: a document's OCR job (MineRU) and its post-processing job (rules or an LLM) run
 * as the two stages of one task.
 *
 * <p>A {@link TaskRuntime} serves both stages, each under a lease with heartbeats on its own queue
 * ({@value EtlTask#OCR_QUEUE}, {@value EtlTask#POSTPROCESS_QUEUE}). The OCR worker's success,
 * carrying the markdown's storage key, chains the post-processing job in the same write; the
 * post-processing worker reads the markdown pointer, post-processes (or, with
 * {@code postprocess_mode=skip}, wraps the pointer in a stable JSON) and succeeds with the result's
 * key, or fails. A post-processing job whose process died is put back in its queue when its lease
 * expires and run again by any process that serves the stage, never by two at once.
 *
 * <p>Control: {@link #cancel} goes through the runtime and is refused with
 * {@code TASK_ALREADY_STARTED} once a job started; {@link #retry} retries a failed task from
 * {@code mineru} (OCR again) or {@code postprocess} (only post-processing, on the kept markdown).
 *
 * <p>Hot state and archive: running tasks stay in the store's hot table; a finished one (completed
 * or cancelled) stays there for a short time ({@link #FINISHED} by default, configurable), then the
 * runtime moves it with its history to the archive, where {@link #task} still finds it.
 */
public final class EtlHost implements AutoCloseable {
    /** The queue of the OCR jobs. */
    public static final String OCR_QUEUE = EtlTask.OCR_QUEUE;
    /** The task attribute naming the document to parse. */
    public static final String DOCUMENT = "document";
    /** The task attribute holding the storage key of the final JSON. */
    public static final String RESULT_KEY = "result_key";
    /**
     * How long a finished task stays in the hot table by default: six hours, the seed's short time to
     * live of terminal states; then it moves to the archive with its history and stays there.
     */
    public static final Retention FINISHED = Retention.archive(Duration.ofHours(6));

    /** The OCR of one document. */
    @FunctionalInterface
    public interface Ocr {
        /** Parses the task's document and returns the storage key of the markdown it wrote. */
        String parse(Task<State> task) throws Exception;
    }

    /** The post-processing of one parsed document. */
    @FunctionalInterface
    public interface PostProcessor {
        /** Post-processes the markdown at {@code markdownKey} in {@code mode}; returns the storage key of the final JSON. */
        String process(Task<State> task, String markdownKey, String mode) throws Exception;
    }

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final TaskOperations operations;
    private final Ocr ocr;
    private final PostProcessor post;
    private final ErrorClassifier classifier;

    /**
     * Creates a host over {@code store}.
     *
     * @param store    where the tasks live
     * @param clock    the clock of the engine and the runtime
     * @param executor runs the OCR and post-processing workers; null for a pool of its own
     * @param owner    the lease owner name
     * @param ocr      the OCR
     * @param post     the post-processing
     */
    public EtlHost(Store store, Clock clock, @Nullable Executor executor, String owner, Ocr ocr, PostProcessor post) {
        this(store, clock, executor, owner, ocr, post, FINISHED);
    }

    /**
     * Creates a host over {@code store} whose finished tasks leave the hot table as {@code finished} says.
     *
     * @param finished how long a finished task stays in the hot table, and where it goes then
     */
    public EtlHost(Store store, Clock clock, @Nullable Executor executor, String owner, Ocr ocr, PostProcessor post,
                   Retention finished) {
        this(store, clock, executor, owner, ocr, post, Settings.defaults().finished(finished));
    }

    /**
     * Creates a host over {@code store} with {@code settings}: retention, who may control a task,
     * the lease of a job, how many jobs run at once and how a stage's exception is classified.
     */
    public EtlHost(Store store, Clock clock, @Nullable Executor executor, String owner, Ocr ocr, PostProcessor post,
                   Settings settings) {
        this.engine = TransitionEngine.builder().store(store).clock(clock).authorizer(settings.authorizer()).build();
        this.operations = TaskOperations.of(engine);
        this.ocr = Objects.requireNonNull(ocr, "ocr");
        this.post = Objects.requireNonNull(post, "post");
        this.classifier = settings.classifier();
        Retention finished = settings.finished();
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(owner).workers(settings.workers())
                .leaseDuration(settings.lease()).pollInterval(Duration.ofSeconds(1)).seed(1).soleOwner(settings.soleOwner())
                .registerStage(EtlTask.MACHINE, EtlTask.OCR_STAGE, this::parse)
                .registerStage(EtlTask.MACHINE, EtlTask.POSTPROCESS_STAGE, this::postprocess)
                .retain(EtlTask.MACHINE, finished);
        if (executor != null) b.executor(executor);
        this.runtime = b.build();
    }

    /**
     * How a host runs.
     *
     * @param finished   how long a finished task stays in the hot table, and where it goes then
     * @param authorizer who may fire a person's command (cancel, retry) at a task
     * @param lease      the lease of a running job: a job whose process died runs again (or fails, for OCR) once it expired
     * @param workers    how many jobs of both stages run at once in this host
     * @param classifier what an exception of the OCR or the post-processing means (its error code)
     * @param soleOwner  whether this host alone uses its store (an embedded H2 file): at start it recovers
     *                   every lease it finds, whoever held it, instead of waiting for their expiry
     */
    public record Settings(Retention finished, Authorizer authorizer, Duration lease, int workers, ErrorClassifier classifier,
                           boolean soleOwner) {
        /** Checks the settings. */
        public Settings {
            Objects.requireNonNull(finished, "finished");
            Objects.requireNonNull(authorizer, "authorizer");
            Objects.requireNonNull(classifier, "classifier");
            if (lease.isNegative() || lease.isZero()) throw new IllegalArgumentException("lease must be positive, was " + lease);
            if (workers < 1) throw new IllegalArgumentException("workers must be at least 1, was " + workers);
        }

        /**
         * The defaults: {@link #FINISHED}, everybody may control every task, 30 s leases, 4 workers, the default
         * classifier, a store shared with other processes.
         */
        public static Settings defaults() {
            return new Settings(FINISHED, Authorizer.ALLOW_ALL, Duration.ofSeconds(30), 4, ErrorClassifier.defaults(), false);
        }

        /** Returns these settings with {@code value} as the retention of finished tasks. */
        public Settings finished(Retention value) {
            return new Settings(value, authorizer, lease, workers, classifier, soleOwner);
        }

        /** Returns these settings with {@code value} as the authorizer. */
        public Settings authorizer(Authorizer value) {
            return new Settings(finished, value, lease, workers, classifier, soleOwner);
        }

        /** Returns these settings with {@code value} as the lease of a job. */
        public Settings lease(Duration value) {
            return new Settings(finished, authorizer, value, workers, classifier, soleOwner);
        }

        /** Returns these settings with {@code value} jobs at once. */
        public Settings workers(int value) {
            return new Settings(finished, authorizer, lease, value, classifier, soleOwner);
        }

        /** Returns these settings with {@code value} as the classifier of a stage's exceptions. */
        public Settings classifier(ErrorClassifier value) {
            return new Settings(finished, authorizer, lease, workers, value, soleOwner);
        }

        /** Returns these settings with {@code value} saying whether this host alone uses its store. */
        public Settings soleOwner(boolean value) {
            return new Settings(finished, authorizer, lease, workers, classifier, value);
        }
    }

    /** Creates a host on the system clock with pools of its own and the simulated OCR and post-processing. */
    public EtlHost(Store store) {
        this(store, Clock.system(), null, "etl-worker-1", simulatedOcr(), simulatedPostProcessor());
    }

    /** Returns the simulated OCR of the sample program: it writes {@code s3://etl/<task>/mineru.md}. */
    public static Ocr simulatedOcr() {
        return task -> "s3://etl/" + task.id() + "/mineru.md";
    }

    /**
     * Returns the simulated post-processing of the sample program: {@code skip} wraps the pointer,
     * other modes call the LLM, which times out on the first post-processing of a document whose
     * name contains {@code slow}.
     */
    public static PostProcessor simulatedPostProcessor() {
        return (task, markdownKey, mode) -> {
            String document = String.valueOf(task.attribute(DOCUMENT));
            if (!mode.equals("skip") && document.contains("slow") && "1".equals(task.attribute(EtlTask.ATTEMPT_POSTPROCESS))) {
                throw new java.util.concurrent.TimeoutException("the LLM did not answer within 60 s");
            }
            return "s3://etl/" + task.id() + "/result-" + mode + ".json";
        };
    }

    /** Returns the engine. */
    public TransitionEngine engine() {
        return engine;
    }

    /** Returns the runtime that runs both stages. */
    public TaskRuntime runtime() {
        return runtime;
    }

    /** Starts the runtime: it recovers the jobs this owner held before a restart, and starts claiming. */
    public void start() {
        runtime.start();
    }

    /** Submits a document under {@code ruleId} (null: the global default rule, which skips the LLM). */
    public long submit(String document, @Nullable String ruleId, String postprocessMode) {
        return engine.create(EtlTask.MACHINE, EtlTask.spec(ruleId, postprocessMode).attribute(DOCUMENT, document))
                .task().id();
    }

    /** {@code POST /tasks/:id/cancel}: cancels a pending task; a started one is refused with {@code TASK_ALREADY_STARTED}. */
    public CancelResult<State> cancel(long id, String user) {
        return cancel(id, Command.user(user).reason("POST /cancel"));
    }

    /** Cancels a pending task with {@code command} (a person's, with its reason and idempotency key). */
    public CancelResult<State> cancel(long id, Command command) {
        return runtime.cancel(EtlTask.MACHINE, id, command);
    }

    /** {@code POST /tasks/:id/retry} from {@code mineru} (null: the default) or {@code postprocess}. */
    public Outcome<State> retry(long id, @Nullable String fromStage, String user) {
        return retry(id, fromStage, false, Command.user(user).reason("POST /retry"));
    }

    /**
     * Retries a failed task from {@code mineru} (null: the default) or {@code postprocess} with
     * {@code command}, at the front of its queue when {@code front}.
     */
    public Outcome<State> retry(long id, @Nullable String fromStage, boolean front, Command command) {
        Command c = fromStage == null ? command : command.set(EtlTask.FROM_STAGE, fromStage);
        return operations.retry(EtlTask.MACHINE, id, Event.RETRY, front, c);
    }

    /** Pauses the OCR queue: no OCR job starts until {@link #resume()}. */
    public void pause() {
        operations.pause(OCR_QUEUE, Command.system().actor(runtime.owner()));
    }

    /** Resumes the OCR queue. */
    public void resume() {
        operations.resume(OCR_QUEUE, Command.system().actor(runtime.owner()));
    }

    /**
     * Returns the task: from the hot table while it runs or has just finished, else from the archive,
     * as it was when it finished, as the seed reads the hot state first and the archive after.
     *
     * @throws IllegalArgumentException if there is no such task in either
     */
    public Task<State> task(long id) {
        return engine.find(EtlTask.MACHINE, id).or(() -> engine.findArchived(EtlTask.MACHINE, id))
                .orElseThrow(() -> new IllegalArgumentException("no task " + id + " of " + EtlTask.MACHINE.name()));
    }

    /**
     * Returns the task as the seed's status record shows it: {@code status}, {@code phase}, the
     * attempts per stage, the markdown key when there is one, and {@code error_code} and
     * {@code error_message}, the task's last error, while it is {@code FAILED}.
     */
    public static Map<String, String> fields(Task<State> task) {
        Map<String, String> fields = new LinkedHashMap<>();
        State shown = task.state() == State.POSTPROCESS_QUEUED ? State.LLM_PROCESSING : task.state();
        fields.put("status", shown.name().toLowerCase(Locale.ROOT));
        fields.put("phase", task.attributes().getOrDefault(EtlTask.PHASE, "ocr"));
        fields.put(EtlTask.ATTEMPT_OCR, task.attributes().getOrDefault(EtlTask.ATTEMPT_OCR, "0"));
        fields.put(EtlTask.ATTEMPT_POSTPROCESS, task.attributes().getOrDefault(EtlTask.ATTEMPT_POSTPROCESS, "0"));
        String markdown = task.attribute(EtlTask.MARKDOWN_KEY);
        if (markdown != null) fields.put(EtlTask.MARKDOWN_KEY, markdown);
        TaskError error = task.record().lastError();
        if (task.state() == State.FAILED && error != null) {
            fields.put("error_code", error.code());
            fields.put("error_message", error.message());
        }
        return fields;
    }

    /**
     * The OCR worker; the claim's start row already set the phase and counted the attempt. A
     * failure, attributed to the step {@code mineru}, becomes the task's last error.
     */
    private WorkResult parse(WorkContext<State> ctx) {
        Task<State> task = ctx.task();
        try {
            String markdown = ocr.parse(task);
            return WorkResult.success(Map.of(EtlTask.MARKDOWN_KEY, markdown));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new WorkResult.Failure("INTERRUPTED", "the OCR was interrupted", true, "mineru");
        } catch (Exception e) {
            return classifier.classify(e).atStep("mineru");
        }
    }

    /** The post-processing worker; the claim's start row counted the attempt. A failure, attributed to the step {@code postprocess}, becomes the task's last error. */
    private WorkResult postprocess(WorkContext<State> ctx) {
        Task<State> task = ctx.task();
        String markdown = task.attribute(EtlTask.MARKDOWN_KEY);
        String mode = task.attributes().getOrDefault(EtlTask.POSTPROCESS_MODE, "skip");
        try {
            if (markdown == null) throw new IllegalStateException("no markdown to post-process");
            return WorkResult.success(Map.of(RESULT_KEY, post.process(task, markdown, mode)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new WorkResult.Failure("INTERRUPTED", "the post-processing was interrupted", true, "postprocess");
        } catch (Exception e) {
            return classifier.classify(e).atStep("postprocess");
        }
    }

    /** Stops the runtime gracefully: running jobs may finish. */
    @Override
    public void close() {
        runtime.close();
    }
}
