package dev.statekit.examples.hosts;

import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.BatchOutcome;
import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.Fire;
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
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.time.Instant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The novel-proofer host: a proofreading job goes through validate → process → merge, and the
 * chunks of its process phase are run by a {@link TaskRuntime} with an LLM worker.
 *
 * <p>The job ({@link NovelProoferJob}) is driven by this host like the seed's background steps and
 * buttons: {@link #validate} slices the text, {@link #startProcess} creates the chunks as the job's
 * children in the job's own write (once; a resume finds them), {@link #pause} holds the job's
 * pending chunks and sends its processing ones back to pending, {@link #retryFailed} re-queues the
 * job with only its failed chunks in one write, and {@link #merge} is the merge gate. The end of
 * the process phase is the library's: the group resolver fires done (every chunk done) or failed
 * (some chunk in error) on the job, exactly once, in whichever process runs the next pass, so a
 * host that dies after the last chunk's commit leaves nothing undone.
 *
 * <p>The chunks ({@link NovelProoferChunk}) run under leases on the queue {@value #QUEUE}: an
 * answer 429 or 5xx is retried inside the same processing (the chunk waits in {@code RETRYING};
 * its record counts the retries and keeps the last error), anything else ends the chunk in
 * {@code ERROR}. On start the host heals a restart: its runtime puts the chunks it held back to
 * pending, and the host puts the chunks that were retrying back to pending too, as the seed's
 * restart heal does. A retrying chunk holds no lease (it waits for its back-off), so this never
 * takes a chunk from another process that runs beside this one; the chunks another process was
 * processing when it died come back to pending when their leases expire, by any runtime's lease
 * recovery. Pause and resume act on one job: its chunks are held through its group, not the queue.
 *
 * <p>For a service ({@code examples serve novel-proofer}) the host also takes a chunk size
 * ({@link #submit(String, String, int, String, String, Map)}: paragraphs packed into chunks of at
 * most that many characters, {@link #slices(String, int)}), the lease duration and more
 * registrations on its runtime, and the buttons with a person's whole {@link Command} (with its
 * idempotency key): {@link #startQueued} (the pool's start of a queued job, safe to run again),
 * {@link #startProcess(long, Command)}, {@link #pause(long, Command)},
 * {@link #retryFailed(long, Command, String)} (optionally with another model), {@link #retryChunk},
 * {@link #reset} and {@link #deleteReset} (the hard delete), and {@link #mergedText}.
 */
public final class NovelProoferHost implements AutoCloseable {
    /** The queue of the chunks. */
    public static final String QUEUE = "novel-proofer-chunks";
    /** The job attribute holding the title. */
    public static final String TITLE = "title";
    /** The job attribute holding the number of chunks validation made. */
    public static final String TOTAL_CHUNKS = "total_chunks";
    /** The job attribute holding how many chunks were done when processing ended. */
    public static final String DONE_CHUNKS = NovelProoferJob.DONE_CHUNKS;
    /** The job attribute holding the length of the merged output. */
    public static final String MERGED_CHARS = "merged_chars";
    /** The chunk attribute holding its position in the text, from 0. */
    public static final String INDEX = "chunk_index";
    /** The chunk attribute holding the proofread text. */
    public static final String OUTPUT = "output";
    /** The model the chunks are proofread with. */
    public static final String MODEL = "proofer-llm-1";
    /** The job attribute holding the most characters of a chunk; without it each paragraph is a chunk. */
    public static final String CHUNK_CHARS = "chunk_chars";
    /** The job attribute naming the model of its latest (or next) processing: the seed's {@code last_llm_model}. */
    public static final String LAST_LLM_MODEL = "last_llm_model";
    /** The chunk attribute holding the text that follows the chunk in the merged output (a paragraph break, or nothing inside a paragraph). */
    public static final String SEPARATOR = "separator";

    /** The LLM that proofreads one chunk. */
    @FunctionalInterface
    public interface Llm {
        /**
         * Returns the proofread text of the chunk at {@code index}, on its {@code attempt}-th processing.
         *
         * @throws ErrorClassifier.StatusException with 429 or 5xx when the call may be retried
         * @throws Exception any other failure, which ends the chunk in error
         */
        String proofread(int index, int attempt, String model, String text) throws Exception;

        /**
         * Returns the proofread text of one call, which also names the job, the chunk and the lease
         * the call runs under; by default {@link #proofread(int, int, String, String)}.
         *
         * @throws ErrorClassifier.StatusException with 429 or 5xx when the call may be retried
         * @throws Exception any other failure, which ends the chunk in error
         */
        default String proofread(Call call) throws Exception {
            return proofread(call.index(), call.attempt(), call.model(), call.text());
        }
    }

    /**
     * One request to the LLM.
     *
     * @param job          the job
     * @param chunk        the chunk's task id
     * @param index        the chunk's position in the text, from 0
     * @param attempt      the chunk's attempt
     * @param fencingToken the lease the call runs under
     * @param model        the model
     * @param text         the chunk's text
     */
    public record Call(long job, long chunk, int index, int attempt, long fencingToken, String model, String text) {}

    /**
     * The LLM's answer "429 Too Many Requests, retry after {@code retryAfter}" (an HTTP 429 with a
     * {@code Retry-After} header): the chunk worker answers {@link WorkResult#rateLimited}, so the
     * chunk waits that long without using an attempt or a retry, and no process starts another
     * chunk of its model (the rate key of the chunks' queue) before then.
     */
    public static final class RateLimited extends ErrorClassifier.StatusException {
        private static final long serialVersionUID = 1L;
        private final Duration retryAfter;

        /** Creates the answer, to be retried after {@code retryAfter}. */
        public RateLimited(Duration retryAfter, String message) {
            super(429, message);
            if (retryAfter.isNegative()) throw new IllegalArgumentException("retry-after must be >= 0, was " + retryAfter);
            this.retryAfter = retryAfter;
        }

        /** Returns how long the LLM asked to wait. */
        public Duration retryAfter() {
            return retryAfter;
        }
    }

    /**
     * A slice of a job's text, with the text that follows it in the merged output.
     *
     * @param text      the slice
     * @param separator what follows it: a paragraph break, nothing when the next slice continues its paragraph, or nothing after the last
     */
    public record Slice(String text, String separator) {}

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final TaskOperations operations;
    private final Llm llm;

    /**
     * Creates a host over {@code store}.
     *
     * @param store    where jobs and chunks live
     * @param clock    the clock of the engine and the runtime
     * @param executor runs the runtime's workers; null for a pool of its own
     * @param owner    the lease owner name: a host restarted under the same name heals at once
     * @param workers  how many chunks are proofread at once
     * @param llm      the LLM
     */
    public NovelProoferHost(Store store, Clock clock, @Nullable Executor executor, String owner, int workers, Llm llm) {
        this(store, clock, executor, owner, workers, llm, Duration.ofSeconds(30), b -> { });
    }

    /**
     * Creates a host over {@code store} whose runtime has leases of {@code lease} and whatever
     * {@code more} adds to it (the workers of a service's own machines, say).
     *
     * @param lease how long a chunk's lease lasts without renewal: how soon another process takes over the chunks of one that died
     * @param more  configures the runtime's builder further, before it is built
     */
    public NovelProoferHost(Store store, Clock clock, @Nullable Executor executor, String owner, int workers, Llm llm,
                            Duration lease, Consumer<TaskRuntimeBuilder> more) {
        this(store, clock, executor, owner, workers, llm, lease, QueueOptions.defaults(), more);
    }

    /**
     * Creates a host over {@code store} whose chunks' queue has {@code chunkQueue} (a rate limit per
     * model, {@link #perModel}, say), with leases of {@code lease} and whatever {@code more} adds to
     * its runtime.
     *
     * @param chunkQueue the options of the queue {@value #QUEUE}
     */
    public NovelProoferHost(Store store, Clock clock, @Nullable Executor executor, String owner, int workers, Llm llm,
                            Duration lease, QueueOptions chunkQueue, Consumer<TaskRuntimeBuilder> more) {
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        this.operations = TaskOperations.of(engine);
        this.llm = Objects.requireNonNull(llm, "llm");
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(owner).workers(workers)
                .leaseDuration(lease).pollInterval(Duration.ofSeconds(1)).seed(1)
                .register(NovelProoferChunk.MACHINE, QUEUE, this::proofread, chunkQueue)
                .resolves(NovelProoferJob.MACHINE);
        if (executor != null) b.executor(executor);
        more.accept(b);
        this.runtime = b.build();
    }

    /**
     * Returns the chunks' queue options with at most {@code starts} LLM calls per {@code period}
     * for each model: the rate key is the chunk's {@value NovelProoferChunk#LLM_MODEL} attribute,
     * so a 429 of one model also holds back only that model's chunks.
     */
    public static QueueOptions perModel(int starts, Duration period) {
        return QueueOptions.defaults().rateLimitPerKey(starts, period, NovelProoferChunk.LLM_MODEL);
    }

    /** Creates a host on the system clock with its own pool of 3 workers and a simulated LLM. */
    public NovelProoferHost(Store store) {
        this(store, Clock.system(), null, "novel-proofer-1", 3, simulatedLlm());
    }

    /**
     * Returns the simulated LLM of the sample program: it corrects a few common slips, and answers
     * 429 to the first request of every third chunk (the chunks at 1, 4, 7 …).
     */
    public static Llm simulatedLlm() {
        return (index, attempt, model, text) -> {
            if (attempt == 1 && index % 3 == 1) throw new ErrorClassifier.StatusException(429, "rate limited, retry later");
            return text.replace("teh ", "the ").replace(" ,", ",").replace("  ", " ");
        };
    }

    /** Returns the engine. */
    public TransitionEngine engine() {
        return engine;
    }

    /** Returns the runtime that runs the chunks. */
    public TaskRuntime runtime() {
        return runtime;
    }

    /**
     * Starts the host: chunks left retrying by an earlier run go back to pending, jobs that a crash
     * left queued after {@code /retry-failed} start processing, then the runtime starts and puts the
     * chunks this owner held back to pending.
     */
    public void start() {
        for (Task<NovelProoferChunk.State> chunk : Tasks.all(engine, NovelProoferChunk.MACHINE,
                TaskQuery.all().states(List.of(NovelProoferChunk.State.RETRYING.name())))) {
            engine.fire(NovelProoferChunk.MACHINE, chunk.id(), NovelProoferChunk.Event.RELEASE,
                    Command.system().actor(runtime.owner()).reason("restart heal").expectVersion(chunk.version()));
        }
        for (Task<NovelProoferJob.State> job : Tasks.all(engine, NovelProoferJob.MACHINE,
                TaskQuery.all().states(List.of(NovelProoferJob.State.QUEUED.name())))) {
            if (NovelProoferJob.PROCESS.equals(job.attribute(NovelProoferJob.PHASE))) {
                engine.fire(NovelProoferJob.MACHINE, job.id(), NovelProoferJob.Event.START,
                        Command.system().actor(runtime.owner()).reason("restart heal: process the failed chunks").expectVersion(job.version()));
            }
        }
        runtime.start();
    }

    /** Submits a job over {@code text}; it is queued for validation. */
    public long submit(String title, String text) {
        return engine.create(NovelProoferJob.MACHINE, TaskSpec.defaults().attribute(TITLE, title).payload(text)).task().id();
    }

    /**
     * Submits a job over {@code text}, queued for validation in phase {@code validate}: its text is
     * cut into chunks of at most {@code chunkChars} characters (0: a chunk per paragraph), to be
     * proofread with {@code model}. With an idempotency key, submitting again returns the first job.
     *
     * @param attributes more attributes of the job (the title, the phase, the chunk size and the model win over them)
     */
    public Created<NovelProoferJob.State> submit(String title, String text, int chunkChars, String model, @Nullable String idempotencyKey,
                                                 Map<String, String> attributes) {
        if (chunkChars < 0) throw new IllegalArgumentException("chunkChars must be >= 0, was " + chunkChars);
        Map<String, String> all = new LinkedHashMap<>(attributes);
        all.put(TITLE, title);
        all.put(NovelProoferJob.PHASE, NovelProoferJob.VALIDATE);
        all.put(LAST_LLM_MODEL, model);
        if (chunkChars > 0) all.put(CHUNK_CHARS, Integer.toString(chunkChars));
        TaskSpec spec = TaskSpec.defaults().attributes(all).payload(text);
        if (idempotencyKey != null) spec = spec.idempotencyKey(idempotencyKey);
        return engine.create(NovelProoferJob.MACHINE, spec);
    }

    /**
     * Does what the background pool does with a queued job, and is safe to run again or in two
     * processes at once: a queued job starts (validation, or processing again after
     * {@code /retry-failed}); a job in phase {@code validate} has its text sliced and waits for
     * the user to start processing. Every change expects the version it was decided on, so the job
     * changes once however many run it.
     *
     * @return the job as it is afterwards, or empty when it does not exist
     */
    public Optional<Task<NovelProoferJob.State>> startQueued(long job) {
        for (int round = 0; round < 10; round++) {
            Optional<Task<NovelProoferJob.State>> found = engine.find(NovelProoferJob.MACHINE, job);
            if (found.isEmpty()) return found;
            Task<NovelProoferJob.State> j = found.get();
            Command command = Command.system().actor(runtime.owner()).expectVersion(j.version());
            if (j.state() == NovelProoferJob.State.QUEUED) {
                engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.START,
                        command.reason(NovelProoferJob.PROCESS.equals(j.attribute(NovelProoferJob.PHASE)) ? "process the failed chunks" : "validate"));
            } else if (j.state() == NovelProoferJob.State.RUNNING && NovelProoferJob.VALIDATE.equals(j.attribute(NovelProoferJob.PHASE))) {
                engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.VALIDATE_DONE,
                        command.reason("validated").set(TOTAL_CHUNKS, Integer.toString(slices(j).size())));
            } else {
                return found;
            }
        }
        return engine.find(NovelProoferJob.MACHINE, job);
    }

    /**
     * Validates a queued job: the pool starts it, the text is cut into chunks, and the job waits
     * for the user to start processing.
     *
     * @return the outcome of the end of validation, or the refusal of its start
     */
    public Outcome<NovelProoferJob.State> validate(long job) {
        Outcome<NovelProoferJob.State> started = engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.START,
                Command.system().actor(runtime.owner()).reason("validate"));
        if (!started.isApplied()) return started;
        int chunks = slices(started.orElseThrow().task()).size();
        return engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.VALIDATE_DONE,
                Command.system().actor(runtime.owner()).set(TOTAL_CHUNKS, Integer.toString(chunks)));
    }

    /**
     * Starts (or resumes) processing a job: the job moves and its chunks are created, unless they
     * exist, in one write; the chunks are held no longer.
     */
    public Outcome<NovelProoferJob.State> startProcess(long job, String user) {
        return startProcess(job, Command.user(user).reason("start process"));
    }

    /**
     * Starts (or resumes) processing a job with {@code command} (a user's, with its idempotency key
     * if any): the job moves and its chunks are created, unless they exist, in one write. The chunks
     * are proofread with the job's model ({@value #LAST_LLM_MODEL}, by default {@value #MODEL}).
     */
    public Outcome<NovelProoferJob.State> startProcess(long job, Command command) {
        Task<NovelProoferJob.State> j = job(job);
        List<Slice> slices = slices(j);
        String model = j.attributes().getOrDefault(LAST_LLM_MODEL, MODEL);
        List<TaskSpec> chunks = new ArrayList<>(slices.size());
        for (int i = 0; i < slices.size(); i++) {
            chunks.add(TaskSpec.defaults().queue(QUEUE)
                    .idempotencyKey("job-" + job + "-chunk-" + i)
                    .attribute(INDEX, Integer.toString(i))
                    .attribute(NovelProoferChunk.LLM_MODEL, model)
                    .attribute(SEPARATOR, slices.get(i).separator())
                    .payload(slices.get(i).text()));
        }
        return engine.fireWithChildren(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.START_PROCESS, command, chunks);
    }

    /**
     * Pauses a job in its process phase: its pending chunks are held, and its in-flight chunks go
     * back to pending (a processing chunk's worker is asked to stop; its result is not kept). The
     * job's change is enough: the group resolver holds the chunks and stops the in-flight ones in
     * every process; the chunks this host runs are stopped here at once as well.
     */
    public Outcome<NovelProoferJob.State> pause(long job, String user) {
        return pause(job, Command.user(user).reason("/pause"));
    }

    /** Pauses a job in its process phase with {@code command}; see {@link #pause(long, String)}. */
    public Outcome<NovelProoferJob.State> pause(long job, Command command) {
        Outcome<NovelProoferJob.State> o = engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.PAUSE, command);
        if (o instanceof Outcome.Applied<NovelProoferJob.State> a && !a.replayed()) stopInFlight(job, "pause");
        return o;
    }

    /**
     * Resets (deletes) a job with {@code command}: the job is cancelled, which holds its chunks and
     * has every process stop their work (the group resolver's part); the chunks this host runs are
     * stopped here at once as well. {@link #deleteReset} then deletes the job with its chunks once
     * none of them is held by a worker any more; output files already written stay.
     */
    public Outcome<NovelProoferJob.State> reset(long job, Command command) {
        Outcome<NovelProoferJob.State> o = engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.RESET, command);
        if (o instanceof Outcome.Applied<NovelProoferJob.State> a && !a.replayed()) stopInFlight(job, "reset");
        return o;
    }

    /**
     * Deletes up to {@code max} reset jobs with their chunks and history, each once none of its
     * chunks holds a lease (a chunk still being stopped keeps its job until it is back to pending).
     * Safe to run in several processes at once.
     *
     * @return how many jobs were deleted
     */
    public int deleteReset(int max) {
        Set<String> chunkStates = new java.util.HashSet<>();
        for (NovelProoferChunk.State s : NovelProoferChunk.State.values()) chunkStates.add(s.name());
        Map<String, Set<String>> finished = Map.of(
                NovelProoferJob.MACHINE.name(), Set.of(NovelProoferJob.State.CANCELLED.name()),
                NovelProoferChunk.MACHINE.name(), chunkStates);
        Instant before = engine.clock().now().plusMillis(1);
        RetentionResult r = operations.deleteFinished(new RetentionRequest(NovelProoferJob.MACHINE.name(), before, finished, max));
        return r.trees();
    }

    /** Asks the in-flight chunks of a job that this host runs, or that no one runs, to go back to pending. */
    private void stopInFlight(long job, String why) {
        for (Task<NovelProoferChunk.State> chunk : chunks(job)) {
            if (chunk.state() == NovelProoferChunk.State.PROCESSING || chunk.state() == NovelProoferChunk.State.RETRYING) {
                runtime.cancel(NovelProoferChunk.MACHINE, chunk.id(), Command.system().actor(runtime.owner()).reason(why));
            }
        }
    }

    /**
     * Retries a failed job: in one write the job is queued again and only its failed chunks go back
     * to pending, with a fresh retry budget; then the job starts again in phase process.
     */
    public Outcome<NovelProoferJob.State> retryFailed(long job, String user) {
        return retryFailed(job, Command.user(user).reason("/retry-failed"), null);
    }

    /**
     * Retries a failed job with {@code command} (a user's): see {@link #retryFailed(long, String)}.
     * With {@code model}, the failed chunks are proofread with that model from now on, and so is
     * the job's next processing. A command whose idempotency key the job has seen returns the first
     * outcome and changes nothing, not even chunks that failed since.
     */
    public Outcome<NovelProoferJob.State> retryFailed(long job, Command command, @Nullable String model) {
        Outcome<NovelProoferJob.State> replayed = replayed(job, command);
        if (replayed != null) return replayed;
        BatchOutcome batch = requeueFailed(job, command, model, null);
        if (!batch.isApplied() && batch.refusedIndex() > 0) batch = requeueFailed(job, command, model, null);    // a chunk changed meanwhile
        return startAfterRequeue(job, batch);
    }

    /**
     * Retries one failed chunk with {@code command} (a user's). When its job has failed, the job is
     * queued again with this chunk alone, in one write, and starts processing it; otherwise (the
     * job still processes its other chunks) the chunk alone goes back to pending.
     *
     * @return the outcome of the chunk's retry, or the refusal of the batch
     */
    public Outcome<?> retryChunk(long chunk, Command command) {
        Optional<Task<NovelProoferChunk.State>> found = engine.find(NovelProoferChunk.MACHINE, chunk);
        Long parent = found.map(Task::parentId).orElse(null);
        Optional<Task<NovelProoferJob.State>> job = parent == null ? Optional.empty() : engine.find(NovelProoferJob.MACHINE, parent);
        if (found.isEmpty() || job.isEmpty() || job.get().state() != NovelProoferJob.State.ERROR) {
            return engine.fire(NovelProoferChunk.MACHINE, chunk, NovelProoferChunk.Event.RETRY_FAILED, command);
        }
        long jobId = job.get().id();
        BatchOutcome batch = requeueFailed(jobId, command, null, chunk);
        Outcome<NovelProoferJob.State> started = startAfterRequeue(jobId, batch);
        if (!started.isApplied()) return started;
        return engine.find(NovelProoferChunk.MACHINE, chunk)
                .<Outcome<?>>map(t -> new Outcome.Applied<>(t, batch.applied().get(batch.applied().size() - 1).entry(), false))
                .orElse(started);
    }

    private @Nullable Outcome<NovelProoferJob.State> replayed(long job, Command command) {
        String key = command.idempotencyKey();
        if (key == null) return null;
        Optional<HistoryEntry> prior = operations.command(job, key);
        Optional<Task<NovelProoferJob.State>> current = engine.find(NovelProoferJob.MACHINE, job);
        if (prior.isEmpty() || current.isEmpty()) return null;
        return new Outcome.Applied<>(current.get(), prior.get(), true);
    }

    private Outcome<NovelProoferJob.State> startAfterRequeue(long job, BatchOutcome batch) {
        if (!batch.isApplied()) {
            @SuppressWarnings("unchecked")
            Outcome<NovelProoferJob.State> refused = (Outcome<NovelProoferJob.State>) (Outcome<?>) Objects.requireNonNull(batch.refusal());
            return refused;
        }
        return engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.START,
                Command.system().actor(runtime.owner()).reason("process the failed chunks"));
    }

    private BatchOutcome requeueFailed(long job, Command command, @Nullable String model, @Nullable Long only) {
        String actor = Objects.requireNonNullElse(command.actor(), "user");
        List<Fire<?, ?>> fires = new ArrayList<>();
        fires.add(new Fire<>(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.RETRY_FAILED,
                model == null ? command : command.set(LAST_LLM_MODEL, model)));
        for (Task<NovelProoferChunk.State> chunk : chunks(job)) {
            if (chunk.state() == NovelProoferChunk.State.ERROR && (only == null || only == chunk.id())) {
                Command c = Command.user(actor).reason("/retry-failed").expectVersion(chunk.version());
                fires.add(new Fire<>(NovelProoferChunk.MACHINE, chunk.id(), NovelProoferChunk.Event.RETRY_FAILED,
                        model == null ? c : c.set(NovelProoferChunk.LLM_MODEL, model)));
            }
        }
        return engine.fireAll(fires);
    }

    /**
     * Merges a job whose chunks are all done: the user opens the merge gate, the outputs are
     * joined in order, and the job is done.
     *
     * @return the merged text, or empty when the job is not waiting for a merge
     */
    public Optional<String> merge(long job, String user) {
        Outcome<NovelProoferJob.State> o = engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.MERGE,
                Command.user(user).reason("/merge"));
        if (!o.isApplied()) return Optional.empty();
        String merged = mergedText(job);
        engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.MERGE_DONE,
                Command.system().actor(runtime.owner()).set(MERGED_CHARS, Integer.toString(merged.length()))).orElseThrow();
        return Optional.of(merged);
    }

    /**
     * Returns the merged output of a job: its chunks' proofread texts in order, each followed by its
     * separator (a paragraph break between paragraphs, nothing inside one).
     */
    public String mergedText(long job) {
        List<Task<NovelProoferChunk.State>> chunks = chunks(job);
        StringBuilder merged = new StringBuilder();
        for (int i = 0; i < chunks.size(); i++) {
            Task<NovelProoferChunk.State> chunk = chunks.get(i);
            merged.append(String.valueOf(chunk.attribute(OUTPUT)));
            if (i < chunks.size() - 1) merged.append(chunk.attributes().getOrDefault(SEPARATOR, "\n\n"));
        }
        return merged.toString();
    }

    /** Returns the job. */
    public Task<NovelProoferJob.State> job(long job) {
        return Tasks.get(engine, NovelProoferJob.MACHINE, job);
    }

    /** Returns the chunks of a job in text order. */
    public List<Task<NovelProoferChunk.State>> chunks(long job) {
        List<Task<NovelProoferChunk.State>> chunks = new ArrayList<>(Tasks.all(engine, NovelProoferChunk.MACHINE, TaskQuery.all().parent(job)));
        chunks.sort(Comparator.comparingInt(c -> Integer.parseInt(c.attributes().getOrDefault(INDEX, "0"))));
        return chunks;
    }

    /**
     * Returns a chunk as the seed's chunk table shows it: {@code state}, {@code retries},
     * {@code llm_model}, and {@code last_error_code} and {@code last_error_message} when the chunk
     * ever failed. The retries and the last error are the chunk's record, kept after a later
     * success.
     */
    public static Map<String, String> chunkFields(Task<NovelProoferChunk.State> chunk) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("state", chunk.state().name().toLowerCase(Locale.ROOT));
        fields.put("retries", Integer.toString(chunk.record().retries()));
        String model = chunk.attribute(NovelProoferChunk.LLM_MODEL);
        if (model != null) fields.put(NovelProoferChunk.LLM_MODEL, model);
        TaskError error = chunk.record().lastError();
        if (error != null) {
            fields.put("last_error_code", error.code());
            fields.put("last_error_message", error.message());
        }
        return fields;
    }

    /** Cuts a job's text into chunks, by its {@value #CHUNK_CHARS} (a chunk per paragraph without it). */
    static List<Slice> slices(Task<NovelProoferJob.State> job) {
        String text = job.record().payload();
        if (text == null) return List.of();
        String max = job.attribute(CHUNK_CHARS);
        return slices(text, max == null ? 0 : Integer.parseInt(max));
    }

    /**
     * Cuts {@code text} into chunks: its paragraphs (blank ones left out, each stripped), packed
     * into chunks of at most {@code chunkChars} characters, a paragraph longer than that cut at the
     * end of a sentence or a space where there is one in the second half of the chunk; with
     * {@code chunkChars} 0, each paragraph is a chunk. Joining the chunks with their separators
     * gives the paragraphs separated by blank lines.
     */
    public static List<Slice> slices(String text, int chunkChars) {
        if (chunkChars < 0) throw new IllegalArgumentException("chunkChars must be >= 0, was " + chunkChars);
        String normalized = text.replace("\r\n", "\n").replace('\r', '\n');
        if (normalized.startsWith("\uFEFF")) normalized = normalized.substring(1);
        List<String> paragraphs = new ArrayList<>();
        for (String p : normalized.split("\\n\\s*\\n")) if (!p.isBlank()) paragraphs.add(p.strip());
        List<Slice> slices = new ArrayList<>();
        if (chunkChars == 0) {
            for (int i = 0; i < paragraphs.size(); i++) slices.add(new Slice(paragraphs.get(i), i < paragraphs.size() - 1 ? "\n\n" : ""));
            return slices;
        }
        StringBuilder current = new StringBuilder();
        for (int p = 0; p < paragraphs.size(); p++) {
            List<String> pieces = cut(paragraphs.get(p), chunkChars);
            for (int i = 0; i < pieces.size(); i++) {
                String piece = pieces.get(i);
                String before = i == 0 ? "\n\n" : "";
                if (current.length() == 0) {
                    current.append(piece);
                } else if (current.length() + before.length() + piece.length() <= chunkChars) {
                    current.append(before).append(piece);
                } else {
                    slices.add(new Slice(current.toString(), before));
                    current.setLength(0);
                    current.append(piece);
                }
            }
        }
        if (current.length() > 0) slices.add(new Slice(current.toString(), ""));
        return slices;
    }

    /** Cuts a paragraph into pieces of at most {@code max} characters, preferring the end of a sentence, then a space. */
    private static List<String> cut(String paragraph, int max) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        while (paragraph.length() - start > max) {
            int end = start + max;
            int at = -1;
            for (int i = end; i > start + max / 2 && at < 0; i--) if (".!?。！？".indexOf(paragraph.charAt(i - 1)) >= 0) at = i;
            for (int i = end; i > start + max / 2 && at < 0; i--) if (Character.isWhitespace(paragraph.charAt(i - 1))) at = i;
            if (at < 0) at = Character.isHighSurrogate(paragraph.charAt(end - 1)) ? end - 1 : end;
            pieces.add(paragraph.substring(start, at));
            start = at;
        }
        pieces.add(paragraph.substring(start));
        return pieces;
    }

    /**
     * The chunk worker: one LLM request. A 429 with a retry-after ({@link RateLimited}) is answered
     * {@link WorkResult#rateLimited}: the chunk waits, and its model with it. Any other failure is
     * classified by the runtime (429 and 5xx are retried) and kept as the chunk's last error.
     */
    private WorkResult proofread(WorkContext<NovelProoferChunk.State> ctx) throws Exception {
        Task<NovelProoferChunk.State> chunk = ctx.task();
        // stopped before the request: a pause or reset releases the chunk, and so does a snooze at shutdown
        if (ctx.cancelled()) return WorkResult.snooze(Duration.ZERO);
        String model = chunk.attributes().getOrDefault(NovelProoferChunk.LLM_MODEL, MODEL);
        int index = Integer.parseInt(chunk.attributes().getOrDefault(INDEX, "0"));
        Long job = chunk.parentId();
        String output;
        try {
            output = llm.proofread(new Call(job == null ? 0 : job, chunk.id(), index, chunk.record().attempts(), ctx.fencingToken(),
                    model, String.valueOf(chunk.record().payload())));
        } catch (RateLimited e) {
            return WorkResult.rateLimited(e.retryAfter());
        }
        return WorkResult.success(Map.of(OUTPUT, output, NovelProoferChunk.LLM_MODEL, model));
    }

    /** Stops the runtime gracefully (running chunks may finish) and waits for it. */
    @Override
    public void close() {
        runtime.close();
    }
}
