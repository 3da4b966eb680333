package dev.statekit.examples.serve.novelproofer;

import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.GroupProgress;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.examples.hosts.NovelProoferHost;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.Exchange;
import dev.statekit.examples.serve.Idempotency;
import dev.statekit.examples.serve.Fires;
import dev.statekit.examples.serve.JsonBody;
import dev.statekit.examples.serve.Reply;
import dev.statekit.store.Page;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTTP API of the novel-proofer service: the jobs, their chunks and the seed's buttons.
 *
 * <pre>
 * POST /jobs                     submit {title, text, chunk_chars?, llm_model?, validate?, process?}   201
 * POST /jobs/sample              submit the bundled sample {title?, chunk_chars?, llm_model?, process?} 201
 * GET  /jobs[?state=&amp;limit=&amp;after=]  the jobs
 * GET  /jobs/{id}                a job: state, phase, progress, last_retry_count, llm_model, last error
 * GET  /jobs/{id}/chunks[?state=] its chunks: state, retries, last_error_code/message, llm_model
 * GET  /jobs/{id}/output         the merged output of a done job
 * POST /jobs/{id}/validate       start validating a queued job
 * POST /jobs/{id}/process        start or resume processing
 * POST /jobs/{id}/pause          pause processing (in-flight chunks back to pending)
 * POST /jobs/{id}/retry-failed   queue the failed chunks again {llm_model?}
 * POST /jobs/{id}/merge          merge the output once every chunk is done
 * POST /jobs/{id}/reset          delete the job (its output file stays)
 * </pre>
 *
 * A refused button is answered 409 with the table's code ({@code ILLEGAL_TRANSITION},
 * {@code PHASE_MISMATCH} …) and the events allowed now; every POST takes an
 * {@code Idempotency-Key} header: a repeat returns the first answer and changes nothing.
 */
final class JobsApi {
    /** The header carrying a request's idempotency key. */
    static final String IDEMPOTENCY_KEY = Idempotency.HEADER;
    /** The smallest chunk size. */
    static final int MIN_CHUNK_CHARS = 50;
    /** The largest chunk size. */
    static final int MAX_CHUNK_CHARS = 20_000;
    /**
     * The longest text of a job, in characters ({@link String#length()}: UTF-16 code units, as Java
     * and JavaScript count them), checked once the body is decoded: 400 naming the limit above it.
     */
    static final int MAX_TEXT = 60_000;
    /**
     * The largest request body of the service, in bytes: 400 KiB, which admits a text of
     * {@value #MAX_TEXT} characters however a client encodes it (up to 3 bytes a character in
     * UTF-8, 6 when escaped as {@code \}{@code uXXXX}) with the other fields.
     */
    static final int MAX_BODY = 400 * 1024;
    /** The longest title. */
    static final int MAX_TITLE = 200;
    /** The most jobs a list returns. */
    static final int MAX_LIST = 200;

    private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9._:/-]{1,64}");
    private static final List<String> CREATE_FIELDS = List.of("title", "text", "chunk_chars", "llm_model", "validate", "process");
    private static final List<String> SAMPLE_FIELDS = List.of("title", "chunk_chars", "llm_model", "process");
    private static final Set<NovelProoferJob.State> SETTLED = EnumSet.of(NovelProoferJob.State.PAUSED, NovelProoferJob.State.ERROR,
            NovelProoferJob.State.DONE, NovelProoferJob.State.CANCELLED);
    private static final Set<NovelProoferJob.State> PROCESSING = EnumSet.of(NovelProoferJob.State.RUNNING, NovelProoferJob.State.ERROR,
            NovelProoferJob.State.DONE, NovelProoferJob.State.CANCELLED);

    private final NovelProoferService service;

    JobsApi(NovelProoferService service) {
        this.service = service;
    }

    /** {@code GET /jobs/{id}}: the job. */
    Reply get(Exchange x) {
        return Reply.ok(view(existing(x), true));
    }

    /** {@code POST /jobs/{id}/process}. */
    Reply process(Exchange x) {
        return button(x, "process", (id, c) -> service.process(id, c));
    }

    /** {@code POST /jobs/{id}/pause}. */
    Reply pause(Exchange x) {
        return button(x, "pause", (id, c) -> service.pause(id, c));
    }

    // --- jobs ----------------------------------------------------------------------------------

    Reply create(Exchange x) {
        x.actor();
        JsonBody body = x.body().requireOnly(CREATE_FIELDS);
        String title = body.requireString("title", MAX_TITLE);
        String text = body.requireString("text", MAX_TEXT);
        int chunkChars = chunkChars(body, service.settings().chunkChars());
        String model = body.string("llm_model", 64).map(m -> modelField(m)).orElse(service.settings().model());
        boolean validate = body.bool("validate").orElse(true);
        boolean process = body.bool("process").orElse(false);
        if (process && !validate) throw ApiException.badField("process", "a job processed at once is validated at once: leave validate true");
        if (NovelProoferHost.slices(text, chunkChars).isEmpty()) throw ApiException.badField("text", "holds no paragraph to proofread");
        return submit(x, title, text, chunkChars, model, validate, process);
    }

    Reply sample(Exchange x) {
        x.actor();
        JsonBody body = x.body().requireOnly(SAMPLE_FIELDS);
        String title = body.string("title", MAX_TITLE).orElse(NovelProoferService.SAMPLE_TITLE);
        int chunkChars = chunkChars(body, NovelProoferService.SAMPLE_CHUNK_CHARS);
        String model = body.string("llm_model", 64).map(m -> modelField(m)).orElse(service.settings().model());
        boolean process = body.bool("process").orElse(true);
        return submit(x, title, NovelProoferService.sampleText(), chunkChars, model, true, process);
    }

    private Reply submit(Exchange x, String title, String text, int chunkChars, String model, boolean validate, boolean process) {
        String actor = x.actor();
        String key = Idempotency.header().key(x).orElse(null);
        Created<NovelProoferJob.State> created = service.create(title, text, chunkChars, model, validate, process, actor,
                key == null ? null : "create:" + key);
        Task<NovelProoferJob.State> job = created.task();
        if (!created.created()) {
            boolean same = title.equals(job.attribute(NovelProoferHost.TITLE)) && text.equals(job.record().payload());
            if (!same) {
                throw new ApiException(409, "IDEMPOTENCY_KEY_REUSED", "the idempotency key was used for job " + job.id()
                        + " with another title or text", IDEMPOTENCY_KEY, null);
            }
            Map<String, Object> view = view(service.job(job.id()).orElse(job), true);
            view.put("replayed", true);
            return Reply.ok(view);
        }
        Task<NovelProoferJob.State> now = validate ? service.await(job.id(), SETTLED).orElse(job) : job;
        if (process && now.state() == NovelProoferJob.State.PAUSED && NovelProoferJob.PROCESS.equals(now.attribute(NovelProoferJob.PHASE))) {
            now = service.await(job.id(), PROCESSING).orElse(now);         // its processing starts right after its validation
        }
        return Reply.created(view(now, true));
    }

    Reply list(Exchange x) {
        TaskQuery q = TaskQuery.all().machine(NovelProoferJob.MACHINE.name())
                .limit((int) x.queryLong("limit", 50, 1, MAX_LIST))
                .after(x.queryLong("after", 0, 0, Long.MAX_VALUE));
        Optional<String> state = x.query("state");
        if (state.isPresent()) q = q.states(List.of(jobState(state.get()).name()));
        Page<Task<NovelProoferJob.State>> page = service.engine().query(NovelProoferJob.MACHINE, q);
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Task<NovelProoferJob.State> job : page.items()) jobs.add(view(job, false));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jobs", jobs);
        body.put("next_after", page.nextAfterId());
        return Reply.ok(body);
    }

    Reply chunks(Exchange x) {
        Task<NovelProoferJob.State> job = existing(x);
        Optional<String> state = x.query("state");
        NovelProoferChunk.State only = state.map(JobsApi::chunkState).orElse(null);
        List<Map<String, Object>> chunks = new ArrayList<>();
        for (Task<NovelProoferChunk.State> chunk : service.host().chunks(job.id())) {
            if (only == null || chunk.state() == only) chunks.add(chunkView(chunk));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("job", job.id());
        body.put("chunks", chunks);
        return Reply.ok(body);
    }

    Reply output(Exchange x) throws IOException {
        Task<NovelProoferJob.State> job = existing(x);
        String file = job.attribute(NovelProoferService.OUTPUT_FILE);
        if (job.state() != NovelProoferJob.State.DONE || file == null) {
            throw new ApiException(409, "NOT_MERGED", "job " + job.id() + " has no output yet: it is " + name(job.state()) + " in phase "
                    + job.attribute(NovelProoferJob.PHASE), null, Fires.userEvents(NovelProoferJob.MACHINE, job.state().name()));
        }
        String text;
        try {
            text = Files.readString(service.outputs().resolve(file), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ApiException(404, "NOT_FOUND", "the output file " + file + " of job " + job.id() + " is gone");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", job.id());
        body.put("output_file", file);
        body.put("chars", text.length());
        body.put("text", text);
        return Reply.ok(body);
    }

    // --- buttons -------------------------------------------------------------------------------

    /** A button: fires it with the request's actor and idempotency key; 200 with the job, or the refusal. */
    private Reply button(Exchange x, String name, Action action) {
        x.body().requireOnly(List.of());
        Task<NovelProoferJob.State> job = existing(x);
        Outcome<NovelProoferJob.State> o = action.apply(job.id(), command(x, name));
        return answer(o, job.id());
    }

    Reply validate(Exchange x) {
        x.body().requireOnly(List.of());
        Task<NovelProoferJob.State> job = existing(x);
        if (job.state() != NovelProoferJob.State.QUEUED) {
            throw new ApiException(409, "ILLEGAL_TRANSITION", "job " + job.id() + " is " + name(job.state()) + " in phase "
                    + job.attribute(NovelProoferJob.PHASE) + "; only a queued job is validated",
                    null, Fires.userEvents(NovelProoferJob.MACHINE, job.state().name()));
        }
        service.validate(job, x.actor());
        return Reply.ok(view(service.await(job.id(), SETTLED).orElse(job), true));
    }

    Reply retryFailed(Exchange x) {
        JsonBody body = x.body().requireOnly(List.of("llm_model"));
        String model = body.string("llm_model", 64).map(m -> modelField(m)).orElse(null);
        Task<NovelProoferJob.State> job = existing(x);
        return answer(service.retryFailed(job.id(), command(x, "retry-failed"), model), job.id());
    }

    Reply merge(Exchange x) {
        x.body().requireOnly(List.of());
        Task<NovelProoferJob.State> job = existing(x);
        Outcome<NovelProoferJob.State> o = service.merge(job.id(), command(x, "merge"));
        if (o instanceof Outcome.Refused<NovelProoferJob.State> refused) throw Fires.refusal(NovelProoferJob.MACHINE, refused);
        Task<NovelProoferJob.State> now = service.await(job.id(), EnumSet.of(NovelProoferJob.State.DONE, NovelProoferJob.State.CANCELLED))
                .orElse(job);
        Map<String, Object> view = view(now, true);
        if (((Outcome.Applied<?>) o).replayed()) view.put("replayed", true);
        return Reply.ok(view);
    }

    Reply reset(Exchange x) {
        x.body().requireOnly(List.of());
        Task<NovelProoferJob.State> job = existing(x);
        Outcome<NovelProoferJob.State> o = service.reset(job.id(), command(x, "reset"));
        if (o instanceof Outcome.Refused<NovelProoferJob.State> refused) throw Fires.refusal(NovelProoferJob.MACHINE, refused);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", job.id());
        body.put("state", name(NovelProoferJob.State.CANCELLED));
        body.put("deleted", service.job(job.id()).isEmpty());
        if (((Outcome.Applied<?>) o).replayed()) body.put("replayed", true);
        return Reply.ok(body);
    }

    /** What a button does. */
    @FunctionalInterface
    private interface Action {
        Outcome<NovelProoferJob.State> apply(long job, Command command);
    }

    private Reply answer(Outcome<NovelProoferJob.State> o, long id) {
        if (o instanceof Outcome.Refused<NovelProoferJob.State> refused) throw Fires.refusal(NovelProoferJob.MACHINE, refused);
        Outcome.Applied<NovelProoferJob.State> applied = (Outcome.Applied<NovelProoferJob.State>) o;
        Map<String, Object> view = view(service.job(id).orElse(applied.task()), true);
        if (applied.replayed()) view.put("replayed", true);
        return Reply.ok(view);
    }

    private static Command command(Exchange x, String button) {
        Command c = Command.user(x.actor()).reason("/" + button);
        String key = Idempotency.header().key(x).orElse(null);
        return key == null ? c : c.idempotencyKey(button + ":" + key);
    }


    private Task<NovelProoferJob.State> existing(Exchange x) {
        long id = x.id("id");
        return service.job(id).orElseThrow(() -> ApiException.notFound("job", id));
    }

    private static int chunkChars(JsonBody body, int fallback) {
        return body.integer("chunk_chars", MIN_CHUNK_CHARS, MAX_CHUNK_CHARS).map(Long::intValue).orElse(fallback);
    }

    /** Returns {@code value} as a model name; 400 for the field {@code llm_model} when it is not one. */
    private static String modelField(String value) {
        if (!MODEL.matcher(value).matches()) throw ApiException.badField("llm_model", "must be 1 to 64 letters, digits or . _ : / -");
        return value;
    }

    /** Returns {@code value} as a model name; an IllegalArgumentException naming {@code option} when it is not one. */
    static String model(String value, String option) {
        if (!MODEL.matcher(value).matches()) throw new IllegalArgumentException(option + " must be 1 to 64 letters, digits or . _ : / -, not '" + value + "'");
        return value;
    }

    private static NovelProoferJob.State jobState(String value) {
        for (NovelProoferJob.State s : NovelProoferJob.State.values()) if (name(s).equals(value)) return s;
        throw new ApiException(400, "INVALID_QUERY", "state must be one of queued, running, paused, done, error, cancelled", "state", null);
    }

    private static NovelProoferChunk.State chunkState(String value) {
        for (NovelProoferChunk.State s : NovelProoferChunk.State.values()) if (name(s).equals(value)) return s;
        throw new ApiException(400, "INVALID_QUERY", "state must be one of pending, processing, retrying, done, error", "state", null);
    }

    static String name(Enum<?> state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    // --- views ---------------------------------------------------------------------------------

    /**
     * Returns a job as the API shows it; with {@code detail}, its progress is counted from its chunks
     * and {@code last_retry_count} is given, otherwise the progress is the group's (of its last
     * resolution pass, a few milliseconds behind).
     */
    Map<String, Object> view(Task<NovelProoferJob.State> job, boolean detail) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", job.id());
        v.put("title", job.attribute(NovelProoferHost.TITLE));
        v.put("state", name(job.state()));
        v.put("phase", job.attribute(NovelProoferJob.PHASE));
        String total = job.attribute(NovelProoferHost.TOTAL_CHUNKS);
        Map<String, Object> progress = new LinkedHashMap<>();
        if (detail) {
            List<Task<NovelProoferChunk.State>> chunks = service.host().chunks(job.id());
            Map<NovelProoferChunk.State, Integer> counts = new java.util.EnumMap<>(NovelProoferChunk.State.class);
            int retries = 0;
            for (Task<NovelProoferChunk.State> c : chunks) {
                counts.merge(c.state(), 1, Integer::sum);
                retries += automaticRetries(c);
            }
            int done = counts.getOrDefault(NovelProoferChunk.State.DONE, 0);
            long all = chunks.isEmpty() ? (total == null ? 0 : Long.parseLong(total)) : chunks.size();
            progress.put("total_chunks", all);
            progress.put("done_chunks", done);
            progress.put("pending_chunks", chunks.isEmpty() ? all : counts.getOrDefault(NovelProoferChunk.State.PENDING, 0));
            progress.put("active_chunks", counts.getOrDefault(NovelProoferChunk.State.PROCESSING, 0)
                    + counts.getOrDefault(NovelProoferChunk.State.RETRYING, 0));
            progress.put("error_chunks", counts.getOrDefault(NovelProoferChunk.State.ERROR, 0));
            progress.put("percent", all == 0 ? 0 : (int) (100 * done / all));
            v.put("progress", progress);
            v.put("last_retry_count", retries);
        } else {
            Optional<GroupProgress> p = service.engine().progress(NovelProoferJob.MACHINE, job.id()).filter(GroupProgress::sealed);
            long all = p.map(GroupProgress::total).orElse(total == null ? 0L : Long.parseLong(total));
            long done = p.map(GroupProgress::succeeded).orElse(0L);
            progress.put("total_chunks", all);
            progress.put("done_chunks", done);
            progress.put("error_chunks", p.map(GroupProgress::failed).orElse(0L));
            progress.put("percent", all == 0 ? 0 : (int) (100 * done / all));
            v.put("progress", progress);
        }
        v.put("llm_model", job.attributes().getOrDefault(NovelProoferHost.LAST_LLM_MODEL, NovelProoferHost.MODEL));
        String chunkChars = job.attribute(NovelProoferHost.CHUNK_CHARS);
        v.put("chunk_chars", chunkChars == null ? null : Integer.parseInt(chunkChars));
        v.put("text_chars", job.record().payload() == null ? 0 : job.record().payload().length());
        v.put("validate", job.attribute(NovelProoferService.VALIDATE_MODE));
        v.put("process", job.attribute(NovelProoferService.PROCESS_MODE));
        v.put("created_by", job.attribute(NovelProoferService.CREATED_BY));
        TaskError error = job.record().lastError();
        if (error == null) {
            v.put("last_error", null);
        } else {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("code", error.code());
            e.put("message", error.message());
            v.put("last_error", e);
        }
        v.put("output_file", job.attribute(NovelProoferService.OUTPUT_FILE));
        String merged = job.attribute(NovelProoferHost.MERGED_CHARS);
        v.put("merged_chars", merged == null ? null : Integer.parseInt(merged));
        v.put("allowed", Fires.userEvents(NovelProoferJob.MACHINE, job.state().name()));
        v.put("created_at", job.record().createdAt().toString());
        v.put("updated_at", job.record().updatedAt().toString());
        v.put("version", job.version());
        return v;
    }

    /**
     * Returns how many automatic retries {@code chunk} had since it was created: the retryable
     * errors in its history. Its record's {@code retries()} counts those of its current processing
     * only, which a pause, a restart or {@code /retry-failed} starts afresh; the seed's
     * {@code last_retry_count} is the job-wide total. A chunk that never failed has no last error
     * (a retryable error always records one, and nothing clears it), so its history is not read.
     */
    private int automaticRetries(Task<NovelProoferChunk.State> chunk) {
        if (chunk.record().lastError() == null && chunk.record().retries() == 0) return 0;
        String retryable = NovelProoferChunk.Event.RETRYABLE_ERROR.name();
        int n = 0;
        for (dev.statekit.store.HistoryEntry e : service.engine().history(chunk.id())) if (retryable.equals(e.event())) n++;
        return n;
    }

    static Map<String, Object> chunkView(Task<NovelProoferChunk.State> chunk) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", chunk.id());
        v.put("index", Integer.parseInt(chunk.attributes().getOrDefault(NovelProoferHost.INDEX, "0")));
        v.put("state", name(chunk.state()));
        v.put("retries", chunk.record().retries());
        v.put("attempts", chunk.record().attempts());
        TaskError error = chunk.record().lastError();
        v.put("last_error_code", error == null ? null : error.code());
        v.put("last_error_message", error == null ? null : error.message());
        v.put("llm_model", chunk.attribute(NovelProoferChunk.LLM_MODEL));
        v.put("chars", chunk.record().payload() == null ? 0 : chunk.record().payload().length());
        String output = chunk.attribute(NovelProoferHost.OUTPUT);
        v.put("output_chars", output == null ? null : output.length());
        v.put("updated_at", chunk.record().updatedAt().toString());
        return v;
    }
}
