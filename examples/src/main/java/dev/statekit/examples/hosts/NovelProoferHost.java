package dev.statekit.examples.hosts;

import dev.statekit.core.BatchOutcome;
import dev.statekit.core.Command;
import dev.statekit.core.Fire;
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
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
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
 * restart heal does. The host serves one job at a time: pause and resume act on the whole queue.
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
    }

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
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
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        this.llm = Objects.requireNonNull(llm, "llm");
        TaskRuntime.Builder b = TaskRuntime.builder(engine).owner(owner).workers(workers)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).seed(1)
                .register(NovelProoferChunk.MACHINE, QUEUE, this::proofread, QueueOptions.defaults())
                .resolves(NovelProoferJob.MACHINE);
        if (executor != null) b.executor(executor);
        this.runtime = b.build();
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
        Task<NovelProoferJob.State> j = job(job);
        List<String> slices = slices(j);
        List<TaskSpec> chunks = new ArrayList<>(slices.size());
        for (int i = 0; i < slices.size(); i++) {
            chunks.add(TaskSpec.defaults().queue(QUEUE)
                    .idempotencyKey("job-" + job + "-chunk-" + i)
                    .attribute(INDEX, Integer.toString(i))
                    .attribute(NovelProoferChunk.LLM_MODEL, MODEL)
                    .payload(slices.get(i)));
        }
        return engine.fireWithChildren(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.START_PROCESS,
                Command.user(user).reason("start process"), chunks);
    }

    /**
     * Pauses a job in its process phase: its pending chunks are held, and its in-flight chunks go
     * back to pending (a processing chunk's worker is asked to stop; its result is not kept). The
     * job's change is enough: the group resolver holds the chunks and stops the in-flight ones in
     * every process; the chunks this host runs are stopped here at once as well.
     */
    public Outcome<NovelProoferJob.State> pause(long job, String user) {
        Outcome<NovelProoferJob.State> o = engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.PAUSE,
                Command.user(user).reason("/pause"));
        if (!o.isApplied()) return o;
        for (Task<NovelProoferChunk.State> chunk : chunks(job)) {
            if (chunk.state() == NovelProoferChunk.State.PROCESSING || chunk.state() == NovelProoferChunk.State.RETRYING) {
                runtime.cancel(NovelProoferChunk.MACHINE, chunk.id(), Command.system().actor(runtime.owner()).reason("pause"));
            }
        }
        return o;
    }

    /**
     * Retries a failed job: in one write the job is queued again and only its failed chunks go back
     * to pending, with a fresh retry budget; then the job starts again in phase process.
     */
    public Outcome<NovelProoferJob.State> retryFailed(long job, String user) {
        BatchOutcome batch = requeueFailed(job, user);
        if (!batch.isApplied() && batch.refusedIndex() > 0) batch = requeueFailed(job, user);    // a chunk changed meanwhile
        if (!batch.isApplied()) {
            @SuppressWarnings("unchecked")
            Outcome<NovelProoferJob.State> refused = (Outcome<NovelProoferJob.State>) (Outcome<?>) Objects.requireNonNull(batch.refusal());
            return refused;
        }
        return engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.START,
                Command.system().actor(runtime.owner()).reason("process the failed chunks"));
    }

    private BatchOutcome requeueFailed(long job, String user) {
        List<Fire<?, ?>> fires = new ArrayList<>();
        fires.add(new Fire<>(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.RETRY_FAILED, Command.user(user).reason("/retry-failed")));
        for (Task<NovelProoferChunk.State> chunk : chunks(job)) {
            if (chunk.state() == NovelProoferChunk.State.ERROR) {
                fires.add(new Fire<>(NovelProoferChunk.MACHINE, chunk.id(), NovelProoferChunk.Event.RETRY_FAILED,
                        Command.user(user).reason("/retry-failed").expectVersion(chunk.version())));
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
        List<String> outputs = new ArrayList<>();
        for (Task<NovelProoferChunk.State> chunk : chunks(job)) outputs.add(String.valueOf(chunk.attribute(OUTPUT)));
        String merged = String.join("\n\n", outputs);
        engine.fire(NovelProoferJob.MACHINE, job, NovelProoferJob.Event.MERGE_DONE,
                Command.system().actor(runtime.owner()).set(MERGED_CHARS, Integer.toString(merged.length()))).orElseThrow();
        return Optional.of(merged);
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

    /** Cuts a job's text into chunks: its paragraphs, blank ones left out. */
    static List<String> slices(Task<NovelProoferJob.State> job) {
        String text = job.record().payload();
        List<String> slices = new ArrayList<>();
        if (text == null) return slices;
        for (String p : text.split("\\n\\s*\\n")) if (!p.isBlank()) slices.add(p.strip());
        return slices;
    }

    /**
     * The chunk worker: one LLM request. A failure is classified by the runtime (429 and 5xx are
     * retried) and kept as the chunk's last error.
     */
    private WorkResult proofread(WorkContext<NovelProoferChunk.State> ctx) throws Exception {
        Task<NovelProoferChunk.State> chunk = ctx.task();
        // stopped before the request: a pause or reset releases the chunk, and so does a snooze at shutdown
        if (ctx.cancelled()) return WorkResult.snooze(Duration.ZERO);
        String model = chunk.attributes().getOrDefault(NovelProoferChunk.LLM_MODEL, MODEL);
        int index = Integer.parseInt(chunk.attributes().getOrDefault(INDEX, "0"));
        String output = llm.proofread(index, chunk.record().attempts(), model, String.valueOf(chunk.record().payload()));
        return WorkResult.success(Map.of(OUTPUT, output, NovelProoferChunk.LLM_MODEL, model));
    }

    /** Stops the runtime gracefully (running chunks may finish) and waits for it. */
    @Override
    public void close() {
        runtime.close();
    }
}
