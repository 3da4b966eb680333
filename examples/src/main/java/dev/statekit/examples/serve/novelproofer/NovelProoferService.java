package dev.statekit.examples.serve.novelproofer;

import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.GroupProgress;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.Retention;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.examples.hosts.NovelProoferHost;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.Fires;
import dev.statekit.examples.serve.Options;
import dev.statekit.examples.serve.Reply;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import dev.statekit.examples.serve.SystemService;
import dev.statekit.store.RateLimit;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The novel-proofer service: the jobs and chunks of seeds 000 and 001 on a
 * {@link NovelProoferHost}, with the seed's buttons as HTTP endpoints ({@link JobsApi}).
 *
 * <p>What runs where. The chunks are proofread by the host's runtime under leases, by the
 * simulated LLM ({@link SimulatedLlm}). The pool's other work, the start of a queued job
 * (validation) and a merge a user asked for, runs as {@link Step} tasks on the same runtime, under
 * leases too. Every change a button makes is decided in the store: creating the chunks with the
 * job's start of processing, the pause (the group resolver holds the chunks and stops the running
 * ones in every process), retry-failed (the job and its failed chunks in one write), the merge gate.
 * The steps are created right after the change that calls for them; a process that dies in between
 * leaves a job queued, or running in phase merge, without its step, and the <em>sweep</em> (every
 * {@value #SWEEP_SECONDS} s in every process) creates the step such a job calls for, under its
 * idempotency key, so once. The sweep also deletes the jobs that were reset, with their chunks,
 * once no chunk of theirs is held by a worker.
 *
 * <p>A restart heals as the seed says: chunks left retrying go back to pending, and a job a crash
 * left queued after retry-failed starts (the host's start). Chunks that a process that died was
 * processing keep its lease until the lease expires ({@code --lease-seconds}); then any process's
 * runtime puts them back to pending (lease-expiry recovery), so a second process that still runs
 * never has its chunks taken from it.
 */
public final class NovelProoferService extends SystemService {
    /** How often the sweep runs, in seconds. */
    static final int SWEEP_SECONDS = 2;
    /** The job attribute saying whether the job is validated at once ({@value #AUTO}) or when asked ({@value #MANUAL}). */
    static final String VALIDATE_MODE = "validate";
    /** The job attribute saying whether the job is processed at once after validation ({@value #AUTO}) or when asked. */
    static final String PROCESS_MODE = "process";
    /** The job attribute naming who submitted it. */
    static final String CREATED_BY = "created_by";
    /** The job attribute holding its output file, relative to the data folder. */
    static final String OUTPUT_FILE = "output_file";
    /** A mode: at once. */
    static final String AUTO = "auto";
    /** A mode: when the user asks. */
    static final String MANUAL = "manual";
    /** The resource holding the sample text. */
    static final String SAMPLE_RESOURCE = "sample.txt";
    /** The title of the sample job. */
    static final String SAMPLE_TITLE = "The Ferry (sample)";
    /** The chunk size of the sample job unless asked otherwise. */
    static final int SAMPLE_CHUNK_CHARS = 300;
    /** How long a request that starts background work waits to answer with its result. */
    static final Duration ANSWER_WAIT = Duration.ofSeconds(3);

    private static final Logger log = LoggerFactory.getLogger(NovelProoferService.class);

    // the service's own options: name, value, default and description, listed by `serve --help` and parsed by `serve`
    static final Options.Option<Double> LLM_FAILURE_RATE = Options.rate("llm-failure-rate", 0.1,
            "how often an LLM call fails with 429/503 and is retried");
    static final Options.Option<Double> LLM_FATAL_RATE = Options.rate("llm-fatal-rate", 0, "how often an LLM call fails with 400, its chunk in error");
    static final Options.Option<Double> LLM_429_RATE = Options.rate("llm-429-rate", 0,
            "how often an LLM call answers 429 with a retry-after: the chunk waits, and so do the other chunks of its model");
    static final Options.Option<Integer> LLM_RETRY_AFTER_MILLIS = Options.integer("llm-retry-after-millis", 1000, 0, 600_000,
            "the retry-after of such a 429, in ms");
    static final Options.Option<String> LLM_RATE = Options.text("llm-rate", "N/PERIOD", "off",
            "at most N LLM calls per PERIOD (500ms, 1s, 1m) for each model, across every process; off: no limit");
    static final Options.Option<String> LLM_MODEL = Options.text("llm-model", "NAME", NovelProoferHost.MODEL, "the model of jobs that name none");
    static final Options.Option<Integer> CHUNK_CHARS = Options.integer("chunk-chars", 2000, JobsApi.MIN_CHUNK_CHARS, JobsApi.MAX_CHUNK_CHARS,
            "the most characters of a chunk, " + JobsApi.MIN_CHUNK_CHARS + " to " + JobsApi.MAX_CHUNK_CHARS);
    static final Options.Option<Integer> WORK_MILLIS = Options.integer("work-millis", 200, 0, 600_000, "how long a simulated LLM call takes, in ms");
    static final Options.Option<Integer> WORKERS = Options.integer("workers", 3, 1, 64, "how many chunks this process proofreads at once, 1 to 64");
    static final Options.Option<Integer> LEASE_SECONDS = Options.integer("lease-seconds", 30, 2, 3600,
            "how soon the work of a process that died is taken over, 2 to 3600");
    static final Options.Option<Boolean> SAMPLE = Options.bool("sample", false, "create a sample job at start when there is none");

    /** The factory of {@code examples serve novel-proofer}. */
    public static final Service.Factory FACTORY = new SystemService.Factory("novel-proofer",
            "proofreading jobs: validate, proofread the chunks with a simulated LLM, merge into a file (seeds 000, 001)",
            Options.of(LLM_FAILURE_RATE, LLM_FATAL_RATE, LLM_429_RATE, LLM_RETRY_AFTER_MILLIS, LLM_RATE, LLM_MODEL, CHUNK_CHARS, WORK_MILLIS, WORKERS, LEASE_SECONDS, SAMPLE),
            NovelProoferService::new);

    private final ServeContext context;
    private final Settings settings;
    private final NovelProoferHost host;
    private final OutputFiles outputs;

    /**
     * The service's options.
     *
     * @param retryableRate how often an LLM call fails with 429 or 503
     * @param fatalRate     how often an LLM call fails with 400
     * @param chunkChars    the chunk size of jobs that name none
     * @param work          how long an LLM call takes
     * @param workers       how many chunks this process proofreads at once
     * @param lease         how long a lease lasts unrenewed
     * @param model         the model of jobs that name none
     * @param sample        whether a sample job is created at start when there is no job
     * @param rateLimitedRate how often an LLM call answers 429 with a retry-after
     * @param retryAfter    the retry-after of such an answer
     * @param llmRate       the most LLM calls per period for each model, or null for no limit
     */
    record Settings(double retryableRate, double fatalRate, int chunkChars, Duration work, int workers, Duration lease, String model,
                    boolean sample, double rateLimitedRate, Duration retryAfter, @Nullable RateLimit llmRate) {
        static Settings of(ServeContext context) {
            return new Settings(context.get(LLM_FAILURE_RATE), context.get(LLM_FATAL_RATE), context.get(CHUNK_CHARS),
                    Duration.ofMillis(context.get(WORK_MILLIS)), context.get(WORKERS), Duration.ofSeconds(context.get(LEASE_SECONDS)),
                    JobsApi.model(context.get(LLM_MODEL), "--llm-model"), context.get(SAMPLE), context.get(LLM_429_RATE),
                    Duration.ofMillis(context.get(LLM_RETRY_AFTER_MILLIS)), parseLlmRate(context.get(LLM_RATE)));
        }

        /** Returns the chunks' queue options: a rate limit per model with {@code --llm-rate}, none without. */
        QueueOptions chunkQueue() {
            return llmRate == null ? QueueOptions.defaults() : NovelProoferHost.perModel(llmRate.starts(), llmRate.period());
        }
    }

    /**
     * Reads {@code --llm-rate}: {@code off}, or {@code N/PERIOD} with a period such as {@code 500ms},
     * {@code 1s} or {@code 1m}; the limit is per model.
     *
     * @throws IllegalArgumentException naming the option when {@code value} is neither
     */
    static @Nullable RateLimit parseLlmRate(String value) {
        if (value.equals("off")) return null;
        Matcher m = LLM_RATE_VALUE.matcher(value.trim());
        if (m.matches()) {
            try {
                long amount = Long.parseLong(m.group(2));
                Duration period = switch (m.group(3)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    default -> Duration.ofMinutes(amount);
                };
                return RateLimit.perKey(Integer.parseInt(m.group(1)), period, NovelProoferChunk.LLM_MODEL);
            } catch (IllegalArgumentException e) {
                // reported below (a number too large, no start, a period of 0)
            }
        }
        throw new IllegalArgumentException("--llm-rate must be off or N/PERIOD (for example 5/1s, 100/1m, 2/500ms), not '" + value + "'");
    }

    private static final Pattern LLM_RATE_VALUE = Pattern.compile("(\\d{1,9})/(\\d{1,9})(ms|s|m)");

    NovelProoferService(ServeContext context) throws IOException {
        this(context, Settings.of(context), new AtomicReference<>());
    }

    /**
     * Builds the host, whose runtime runs the {@link Step} tasks with {@link #runStep}: the step
     * worker reaches this service through {@code self}, set here before the runtime can start.
     */
    private NovelProoferService(ServeContext context, Settings settings, AtomicReference<NovelProoferService> self) throws IOException {
        this(context, settings, new NovelProoferHost(context.store(), context.clock(), null, context.owner(), settings.workers(),
                new SimulatedLlm(context.clock(), settings.retryableRate(), settings.fatalRate(), settings.rateLimitedRate(), settings.retryAfter(),
                        settings.work(), context.dataDir().resolve("llm-ledger.log"), context.owner()), settings.lease(), settings.chunkQueue(),
                b -> b.soleOwner(context.soleOwner()).register(Step.MACHINE, Step.QUEUE, ctx -> self.get().runStep(ctx), QueueOptions.defaults())
                        .retain(Step.MACHINE, Retention.delete(Duration.ofHours(1)))));
        self.set(this);
    }

    private NovelProoferService(ServeContext context, Settings settings, NovelProoferHost host) throws IOException {
        super(new Host(host.engine(), host.runtime(), host::start, host::close),
                List.of(NovelProoferJob.MACHINE, NovelProoferChunk.MACHINE, Step.MACHINE), List.of(NovelProoferHost.QUEUE, Step.QUEUE),
                Duration.ofSeconds(10));
        this.context = context;
        this.settings = settings;
        this.host = host;
        this.outputs = new OutputFiles(context.dataDir(), context.clock(), context.owner());
        every("novel-proofer-sweep", Duration.ofSeconds(SWEEP_SECONDS), this::sweep);
    }

    // --- Service -------------------------------------------------------------------------------

    /** Returns 400 KiB: a text of 60,000 characters in any encoding, with the other fields ({@link JobsApi#MAX_BODY}). */
    @Override
    public int maxBody() {
        return JobsApi.MAX_BODY;
    }

    @Override
    public void routes(Router router) {
        JobsApi api = new JobsApi(this);
        router.post("/jobs", api::create)
                .post("/jobs/sample", api::sample)
                .get("/jobs", api::list)
                .get("/jobs/{id}", api::get)
                .get("/jobs/{id}/chunks", api::chunks)
                .get("/jobs/{id}/output", api::output)
                .post("/jobs/{id}/validate", api::validate)
                .post("/jobs/{id}/process", api::process)
                .post("/jobs/{id}/pause", api::pause)
                .post("/jobs/{id}/retry-failed", api::retryFailed)
                .post("/jobs/{id}/merge", api::merge)
                .post("/jobs/{id}/reset", api::reset);
    }

    /** Creates the sample job, when asked to and there is no job. */
    @Override
    protected void started() {
        if (settings.sample() && engine().query(NovelProoferJob.MACHINE, TaskQuery.all().machine(NovelProoferJob.MACHINE.name()).limit(1))
                .items().isEmpty()) {
            Created<NovelProoferJob.State> c = create(SAMPLE_TITLE, sampleText(), SAMPLE_CHUNK_CHARS, settings.model(), true, true,
                    "sample", "sample-job-at-start");
            log.info("novel-proofer: sample job {} created", c.task().id());
        }
    }

    @Override
    public Outcome<?> fireUser(Machine<?, ?> machine, long id, String event, String actor) {
        Command command = Command.user(actor).reason("/" + event.toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        if (machine.name().equals(NovelProoferJob.MACHINE.name()) && engine().find(NovelProoferJob.MACHINE, id).isPresent()) {
            switch (event) {
                case "START_PROCESS":
                    return process(id, command);
                case "PAUSE":
                    return pause(id, command);
                case "RETRY_FAILED":
                    return retryFailed(id, command, null);
                case "MERGE":
                    return merge(id, command);
                case "RESET":
                    return reset(id, command);
                default:
                    break;
            }
        }
        if (machine.name().equals(NovelProoferChunk.MACHINE.name()) && event.equals(NovelProoferChunk.Event.RETRY_FAILED.name())) {
            return host.retryChunk(id, command);
        }
        return super.fireUser(machine, id, event, actor);
    }

    @Override
    public Reply retryFailedChildren(Machine<?, ?> machine, long id, String actor) {
        if (!machine.name().equals(NovelProoferJob.MACHINE.name())) return super.retryFailedChildren(machine, id, actor);
        if (engine().find(NovelProoferJob.MACHINE, id).isEmpty()) throw ApiException.notFound("job", id);
        Outcome<NovelProoferJob.State> o = retryFailed(id, Command.user(actor).reason("/retry-failed"), null);
        return Fires.reply(NovelProoferJob.MACHINE, o, 200, Fires.applied(o));
    }

    /**
     * What blocks a job beyond its record: the error of a step of its work (its start or its merge)
     * that is waiting to try again after a failure, or that failed after its retries. A merge that
     * cannot write its output file leaves the job running: the merge step's error is the reason.
     */
    @Override
    public List<TaskError> blockingErrors(TaskRecord task) {
        if (!task.machine().equals(NovelProoferJob.MACHINE.name())) return List.of();
        String job = Long.toString(task.id());
        List<TaskError> errors = new java.util.ArrayList<>();
        for (Task<Step.State> step : engine().query(Step.MACHINE, TaskQuery.all().machine(Step.MACHINE.name())
                .states(List.of(Step.State.PENDING.name(), Step.State.FAILED.name())).limit(500)).items()) {
            TaskError e = step.record().lastError();
            if (e == null || !job.equals(step.attribute(Step.JOB))) continue;
            boolean retrying = step.state() == Step.State.PENDING && step.record().retries() > 0;
            if (!retrying && step.state() != Step.State.FAILED) continue;
            String kind = step.attributes().getOrDefault(Step.KIND, "step");
            errors.add(new TaskError(e.code(), "the " + kind + " step (task #" + step.id() + ") "
                    + (retrying ? "failed and will try again" : "failed after its retries; retry it from its page") + ": " + e.message(),
                    e.retryable(), kind));
        }
        return errors;
    }

    /** A reset deletes the job with its chunks and their history; output files already written stay. */
    @Override
    public @Nullable String deletes(Machine<?, ?> machine, long id, String event) {
        if (!machine.name().equals(NovelProoferJob.MACHINE.name()) || !event.equals(NovelProoferJob.Event.RESET.name())) return null;
        long chunks = engine().progress(NovelProoferJob.MACHINE, id).map(GroupProgress::total).orElse(0L);
        return "job #" + id + " with its " + chunks + (chunks == 1 ? " chunk" : " chunks") + " and their history (output files already written stay)";
    }

    // --- the buttons ---------------------------------------------------------------------------

    /** Returns the host. */
    NovelProoferHost host() {
        return host;
    }

    /** Returns the settings. */
    Settings settings() {
        return settings;
    }

    /** Returns the output files. */
    OutputFiles outputs() {
        return outputs;
    }

    /** Returns the job {@code id}, if it exists. */
    Optional<Task<NovelProoferJob.State>> job(long id) {
        return engine().find(NovelProoferJob.MACHINE, id);
    }

    /**
     * Submits a job; with {@code validate} it is validated at once (its start step is created), with
     * {@code process} it is processed at once after that. With an idempotency key that was used, the
     * first job is returned and nothing is created.
     */
    Created<NovelProoferJob.State> create(String title, String text, int chunkChars, String model, boolean validate, boolean process,
                                          String actor, @Nullable String key) {
        Map<String, String> attributes = Map.of(
                VALIDATE_MODE, validate ? AUTO : MANUAL,
                PROCESS_MODE, process ? AUTO : MANUAL,
                CREATED_BY, actor);
        Created<NovelProoferJob.State> created = host.submit(title, text, chunkChars, model, key, attributes);
        ensureStart(created.task());
        return created;
    }

    /** Asks the pool to start a queued job now; the caller checked that it is queued. */
    void validate(Task<NovelProoferJob.State> job, String actor) {
        requestStart(job, actor);
    }

    Outcome<NovelProoferJob.State> process(long id, Command command) {
        return host.startProcess(id, command);
    }

    Outcome<NovelProoferJob.State> pause(long id, Command command) {
        return host.pause(id, command);
    }

    Outcome<NovelProoferJob.State> retryFailed(long id, Command command, @Nullable String model) {
        return host.retryFailed(id, command, model);
    }

    /** Opens the merge gate of a job and asks for its merge; the merge step writes the file and ends the job. */
    Outcome<NovelProoferJob.State> merge(long id, Command command) {
        Outcome<NovelProoferJob.State> o = engine().fire(NovelProoferJob.MACHINE, id, NovelProoferJob.Event.MERGE, command);
        if (o instanceof Outcome.Applied<NovelProoferJob.State> a) {
            Task<NovelProoferJob.State> job = a.task();
            if (job.state() == NovelProoferJob.State.RUNNING) requestMerge(id, Objects.requireNonNullElse(command.actor(), "user"));
        }
        return o;
    }

    /** Resets a job and deletes it (with its chunks) if none of its chunks is held by a worker any more; the sweep deletes it otherwise. */
    Outcome<NovelProoferJob.State> reset(long id, Command command) {
        Outcome<NovelProoferJob.State> o = host.reset(id, command);
        if (o.isApplied()) host.deleteReset(20);
        return o;
    }

    /** Waits up to {@link #ANSWER_WAIT} for job {@code id} to be in one of {@code states}; returns it as it is then, or empty once deleted. */
    Optional<Task<NovelProoferJob.State>> await(long id, Set<NovelProoferJob.State> states) {
        try {
            return Optional.of(engine().await(NovelProoferJob.MACHINE, id, states, ANSWER_WAIT).get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // not within the wait, or deleted: answer with the job as it is
        }
        return job(id);
    }

    /** Returns the sample text bundled with the service. */
    static String sampleText() {
        try (InputStream in = NovelProoferService.class.getResourceAsStream(SAMPLE_RESOURCE)) {
            if (in == null) throw new IllegalStateException("the sample text " + SAMPLE_RESOURCE + " is missing from the class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // --- steps ---------------------------------------------------------------------------------

    /** Creates the start step of a queued job that is to start without being asked: validated at once, or queued again by retry-failed. */
    private void ensureStart(Task<NovelProoferJob.State> job) {
        if (job.state() != NovelProoferJob.State.QUEUED) return;
        boolean afterRetry = NovelProoferJob.PROCESS.equals(job.attribute(NovelProoferJob.PHASE));
        if (afterRetry || AUTO.equals(job.attribute(VALIDATE_MODE))) {
            requestStart(job, job.attributes().getOrDefault(CREATED_BY, "user"));
        }
    }

    private void requestStart(Task<NovelProoferJob.State> job, String actor) {
        engine().create(Step.MACHINE, TaskSpec.defaults().queue(Step.QUEUE).idempotencyKey(Step.startKey(job.id(), job.version()))
                .attribute(Step.JOB, Long.toString(job.id())).attribute(Step.KIND, Step.START).attribute(Step.ACTOR, actor));
    }

    private void requestMerge(long job, String actor) {
        engine().create(Step.MACHINE, TaskSpec.defaults().queue(Step.QUEUE).idempotencyKey(Step.mergeKey(job))
                .attribute(Step.JOB, Long.toString(job)).attribute(Step.KIND, Step.MERGE).attribute(Step.ACTOR, actor));
    }

    /** The worker of the steps. */
    private WorkResult runStep(WorkContext<Step.State> ctx) throws IOException {
        Task<Step.State> step = ctx.task();
        String kind = step.attributes().getOrDefault(Step.KIND, "");
        long job = Long.parseLong(step.attributes().getOrDefault(Step.JOB, "0"));
        switch (kind) {
            case Step.START -> startJob(job);
            case Step.MERGE -> mergeJob(job);
            default -> {
                return WorkResult.fatal("UNKNOWN_STEP", "no step of kind '" + kind + "'");
            }
        }
        return WorkResult.success();
    }

    /** Starts a queued job; a job submitted to be processed at once starts processing after its validation, once. */
    private void startJob(long id) {
        Optional<Task<NovelProoferJob.State>> job = host.startQueued(id);
        if (job.isEmpty()) return;
        Task<NovelProoferJob.State> j = job.get();
        boolean validated = j.state() == NovelProoferJob.State.PAUSED && NovelProoferJob.PROCESS.equals(j.attribute(NovelProoferJob.PHASE));
        boolean chunked = engine().progress(NovelProoferJob.MACHINE, id).map(GroupProgress::sealed).orElse(false);
        if (validated && AUTO.equals(j.attribute(PROCESS_MODE)) && !chunked) {
            Outcome<NovelProoferJob.State> o = host.startProcess(id, Command.user(j.attributes().getOrDefault(CREATED_BY, "user"))
                    .reason("process on submission").idempotencyKey("process-on-submission").expectVersion(j.version()));
            if (!o.isApplied()) log.debug("job {} was not processed on submission: {}", id, o);
        }
    }

    /** Merges a job that waits for its merge: writes its output file once, then ends the job. */
    private void mergeJob(long id) throws IOException {
        Optional<Task<NovelProoferJob.State>> found = job(id);
        if (found.isEmpty()) return;
        Task<NovelProoferJob.State> job = found.get();
        if (job.state() != NovelProoferJob.State.RUNNING || !NovelProoferJob.MERGE.equals(job.attribute(NovelProoferJob.PHASE))) return;
        String relative = OutputFiles.relativePath(id, job.attributes().getOrDefault(NovelProoferHost.TITLE, ""));
        String text = host.mergedText(id);
        boolean written = outputs.writeOnce(id, relative, text);
        Outcome<NovelProoferJob.State> done = engine().fire(NovelProoferJob.MACHINE, id, NovelProoferJob.Event.MERGE_DONE,
                Command.system().actor(context.owner()).reason("merged into " + relative).expectVersion(job.version())
                        .set(NovelProoferHost.MERGED_CHARS, Integer.toString(text.length())).set(OUTPUT_FILE, relative));
        log.info("job {}: output {} ({}), {}", id, relative, written ? "written" : "written before", done.isApplied() ? "done" : done);
    }

    /** Creates the steps that jobs call for and have not got (a process died between the change and the step), and deletes reset jobs. */
    private void sweep() {
        try {
            for (Task<NovelProoferJob.State> job : jobsIn(NovelProoferJob.State.QUEUED)) ensureStart(job);
            for (Task<NovelProoferJob.State> job : jobsIn(NovelProoferJob.State.RUNNING)) {
                if (NovelProoferJob.MERGE.equals(job.attribute(NovelProoferJob.PHASE))) {
                    requestMerge(job.id(), job.attributes().getOrDefault(CREATED_BY, "user"));
                }
            }
            host.deleteReset(100);
        } catch (RuntimeException e) {
            if (!closing()) log.warn("novel-proofer: the sweep failed, the next one tries again: {}", e.toString());
        }
    }

    private List<Task<NovelProoferJob.State>> jobsIn(NovelProoferJob.State state) {
        return engine().query(NovelProoferJob.MACHINE, TaskQuery.all().machine(NovelProoferJob.MACHINE.name())
                .states(List.of(state.name())).limit(500)).items();
    }
}
