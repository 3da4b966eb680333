package dev.statekit.examples.serve.etl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.Exchange;
import dev.statekit.examples.serve.Idempotency;
import dev.statekit.examples.serve.Fires;
import dev.statekit.examples.serve.Json;
import dev.statekit.examples.serve.JsonBody;
import dev.statekit.examples.serve.Reply;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Page;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP API of the ETL service, the seed's router kept: submit, status, list, and the control
 * plane (cancel, retry by stage), plus a task's history and result.
 *
 * <pre>
 * POST /api/v1/etl/tasks                      {file_name, content | path, rule_id?}  201 (200 when replayed)
 * GET  /api/v1/etl/tasks?status=&amp;after=&amp;limit=  200
 * GET  /api/v1/etl/tasks/{task_id}            200, 404
 * GET  /api/v1/etl/tasks/{task_id}/history    200, 404
 * GET  /api/v1/etl/tasks/{task_id}/result     200, 404, 409 RESULT_NOT_READY
 * POST /api/v1/etl/tasks/{task_id}/cancel     200, 403 FORBIDDEN, 404, 409 TASK_ALREADY_STARTED
 * POST /api/v1/etl/tasks/{task_id}/retry      {from_stage?, force?, reset_error?}  200, 403, 404, 409
 * </pre>
 *
 * Changes may carry an {@code Idempotency-Key} header: a submission repeated with the key (by the
 * same user) returns the first task, a cancel or retry repeated with it returns the first outcome.
 */
final class EtlApi {
    /** The header of a change's idempotency key. */
    static final String IDEMPOTENCY_KEY = Idempotency.HEADER;
    /** The attribute telling whether the submission gave {@code content} or {@code path}. */
    static final String SOURCE = "source";
    /** The attribute holding the digest of the submission, to tell a replay from a reused key. */
    static final String REQUEST_SHA256 = "request_sha256";
    /** The attribute set by {@code reset_error: false}: the last error stays shown while the retried task runs. */
    static final String SHOW_LAST_ERROR = "show_last_error";
    /** The longest {@code content} accepted (the body limit is lower still). */
    static final int MAX_CONTENT = 65_536;
    /** The seed's status values, in order. */
    static final List<String> STATUSES = List.of("pending", "mineru_parsing", "llm_processing", "completed", "failed", "cancelled");

    static final String BASE = "/api/v1/etl/tasks";

    private final EtlHost host;
    private final EtlFiles files;

    EtlApi(EtlHost host, EtlFiles files) {
        this.host = host;
        this.files = files;
    }

    /** {@code GET BASE/{task_id}}: the task. */
    Reply get(Exchange x) {
        return Reply.ok(view(task(x.id("task_id"))));
    }

    Reply submit(Exchange x) {
        String actor = x.actor();
        Optional<String> key = Idempotency.header().key(x);
        JsonBody body = x.body().requireOnly(List.of("file_name", "content", "path", "rule_id"));
        String fileName = body.requireString("file_name", 255);
        Optional<String> content = body.string("content", MAX_CONTENT);
        Optional<String> path = body.string("path", 1024);
        if (content.isPresent() == path.isPresent()) {
            throw ApiException.badField(content.isPresent() ? "path" : "content", content.isPresent()
                    ? "give the document as content or as path, not both" : "is required (or give path, a file of the inputs folder)");
        }
        String ruleId = body.string("rule_id", 100).orElse(Rules.DEFAULT);
        String mode = Rules.BUILT_IN.get(ruleId);
        if (mode == null) {
            throw ApiException.badField("rule_id", "'" + ruleId + "' is not a rule; the rules are " + String.join(", ", Rules.BUILT_IN.keySet()));
        }
        String source;
        try {
            source = path.isPresent() ? files.inputPath(path.get()) : null;
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("path", e.getMessage());
        }
        String digest = EtlFiles.sha256(fileName + "\n" + ruleId + "\n" + (source != null ? "path:" + source : "content:" + content.orElseThrow()));
        TaskSpec spec = EtlTask.spec(ruleId.equals(Rules.DEFAULT) ? null : ruleId, mode)
                .attribute(EtlHost.DOCUMENT, fileName)
                .attribute(EtlAccess.SUBMITTED_BY, actor)
                .attribute(SOURCE, source != null ? "path" : "content")
                .attribute(REQUEST_SHA256, digest);
        spec = source != null ? spec.attribute(EtlStages.SOURCE_PATH, source) : spec.payload(content.orElseThrow());
        if (key.isPresent()) spec = spec.idempotencyKey(actor + "/" + key.get());   // '/' never appears in a user's name
        Created<State> created = host.engine().create(EtlTask.MACHINE, spec);
        Task<State> task = created.task();
        if (!created.created() && !digest.equals(task.attribute(REQUEST_SHA256))) {
            throw new ApiException(409, "IDEMPOTENCY_KEY_REUSED", IDEMPOTENCY_KEY + " " + key.orElse("") + " was used for task " + task.id()
                    + ", a different submission", null, List.of());
        }
        Map<String, Object> view = view(task);
        view.put("replayed", !created.created());
        return Reply.json(created.created() ? 201 : 200, view);
    }

    Reply list(Exchange x) {
        Optional<String> status = x.query("status");
        Set<String> states = new LinkedHashSet<>();
        if (status.isPresent()) {
            String s = status.get().toLowerCase(Locale.ROOT);
            if (!STATUSES.contains(s)) {
                throw new ApiException(400, "INVALID_QUERY", "status must be one of " + String.join(", ", STATUSES) + ", not '"
                        + truncate(status.get()) + "'", "status", null);
            }
            for (State state : State.values()) if (shown(state).equals(s)) states.add(state.name());
        }
        long after = x.queryLong("after", 0, 0, Long.MAX_VALUE);
        int limit = (int) x.queryLong("limit", 50, 1, 500);
        TaskQuery query = TaskQuery.all().machine(EtlTask.MACHINE.name()).states(states).after(after).limit(limit);
        Page<Task<State>> page = host.engine().query(EtlTask.MACHINE, query);
        List<Map<String, Object>> tasks = new ArrayList<>();
        for (Task<State> t : page.items()) tasks.add(view(t));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tasks", tasks);
        body.put("next_after", page.hasNext() ? page.nextAfterId() : null);
        return Reply.ok(body);
    }

    Reply history(Exchange x) {
        long id = x.id("task_id");
        task(id);
        List<Map<String, Object>> steps = new ArrayList<>();
        for (HistoryEntry entry : host.engine().history(id)) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("version", entry.version());
            s.put("from", entry.from());
            s.put("to", entry.to());
            s.put("event", entry.event());
            s.put("source", entry.source().name());
            s.put("actor", entry.actor());
            s.put("reason", entry.reason());
            s.put("at", entry.at().toString());
            s.put("idempotency_key", entry.commandKey());
            steps.add(s);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("task_id", id);
        body.put("history", steps);
        return Reply.ok(body);
    }

    Reply result(Exchange x) throws IOException {
        Task<State> task = task(x.id("task_id"));
        String key = task.attribute(EtlHost.RESULT_KEY);
        if (task.state() != State.COMPLETED || key == null) {
            throw new ApiException(409, "RESULT_NOT_READY", "task " + task.id() + " is " + shown(task.state()) + "; its result is written when it completes",
                    null, Fires.userEvents(EtlTask.MACHINE, task.state().name()));
        }
        Optional<String> read;
        try {
            read = files.read(key);
        } catch (IOException e) {
            // the key, relative to the data folder, and the system's reason: never the server's path
            throw new ApiException(500, "RESULT_UNREADABLE", "the result " + key + " of task " + task.id() + " cannot be read: "
                    + dev.statekit.examples.StartFailure.reason(e));
        }
        String text = read.orElseThrow(() -> new ApiException(404, "RESULT_MISSING", "the result " + key + " of task "
                + task.id() + " is not in the results folder"));
        JsonNode result = Json.read(text);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("task_id", task.id());
        body.put("result_key", key);
        body.put("result", result);
        return Reply.ok(body);
    }

    Reply cancel(Exchange x) {
        long id = x.id("task_id");
        String actor = x.actor();
        Optional<String> key = Idempotency.header().key(x);
        x.body().requireOnly(List.of());
        Command command = Command.user(actor).reason("POST /cancel");
        if (key.isPresent()) command = command.idempotencyKey(key.get());
        CancelResult<State> result = host.cancel(id, command);
        Outcome<State> outcome = result.outcome();
        if (outcome instanceof Outcome.Refused<State> refused) throw Fires.refusal(EtlTask.MACHINE, refused);
        if (outcome instanceof Outcome.Applied<State> applied) {
            Map<String, Object> view = view(applied.task());
            view.put("replayed", applied.replayed());
            return Reply.ok(view);
        }
        return Reply.json(202, view(task(id)));     // a running task asked to stop; its table refuses that, so not reached
    }

    Reply retry(Exchange x) {
        long id = x.id("task_id");
        String actor = x.actor();
        Optional<String> key = Idempotency.header().key(x);
        JsonBody body = x.body().requireOnly(List.of("from_stage", "force", "reset_error"));
        String from = body.oneOf("from_stage", new LinkedHashSet<>(List.of("mineru", "postprocess"))).orElse("mineru");
        boolean force = body.bool("force").orElse(false);
        boolean resetError = body.bool("reset_error").orElse(true);
        String asked = from;
        if (from.equals("postprocess") && force) {
            String markdown = task(id).attribute(EtlTask.MARKDOWN_KEY);
            if (markdown == null || !files.exists(markdown)) from = "mineru";     // forced: no markdown to reuse, so parse again
        }
        Command command = Command.user(actor).reason("POST /retry from_stage=" + asked + (force ? " force" : "")
                + (from.equals(asked) ? "" : " (no markdown: from mineru)"));
        if (key.isPresent()) command = command.idempotencyKey(key.get());
        command = resetError ? command.remove(SHOW_LAST_ERROR) : command.set(SHOW_LAST_ERROR, "true");
        Outcome<State> outcome = host.retry(id, from, false, command);
        if (outcome instanceof Outcome.Refused<State> refused) throw Fires.refusal(EtlTask.MACHINE, refused);
        Outcome.Applied<State> applied = (Outcome.Applied<State>) outcome;
        Map<String, Object> view = view(applied.task());
        view.put("retried_from", from);
        view.put("replayed", applied.replayed());
        return Reply.ok(view);
    }

    /** Returns the task, from the hot table or the archive; 404 when there is none. */
    private Task<State> task(long id) {
        return host.engine().find(EtlTask.MACHINE, id).or(() -> host.engine().findArchived(EtlTask.MACHINE, id))
                .orElseThrow(() -> ApiException.notFound("task", id));
    }


    /** Returns the seed's status of {@code state}: {@code POSTPROCESS_QUEUED} shows as {@code llm_processing}. */
    static String shown(State state) {
        return (state == State.POSTPROCESS_QUEUED ? State.LLM_PROCESSING : state).name().toLowerCase(Locale.ROOT);
    }

    /**
     * Returns the progress of the task, 0 to 100: what of its work stands. A failed task keeps 50
     * when its markdown does (it failed in post-processing).
     */
    static int progress(Task<State> task) {
        return switch (task.state()) {
            case PENDING, CANCELLED -> 0;
            case MINERU_PARSING -> 10;
            case POSTPROCESS_QUEUED -> 50;
            case LLM_PROCESSING -> 60;
            case COMPLETED -> 100;
            case FAILED -> task.attribute(EtlTask.MARKDOWN_KEY) != null ? 50 : 0;
        };
    }

    /** Returns the task as the API shows it: the seed's status record, what was submitted, and where its files are. */
    static Map<String, Object> view(Task<State> task) {
        Map<String, String> fields = EtlHost.fields(task);
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("task_id", task.id());
        v.put("file_name", task.attribute(EtlHost.DOCUMENT));
        v.put("source", task.attribute(SOURCE));
        v.put("source_path", task.attribute(EtlStages.SOURCE_PATH));
        v.put("rule_id", task.attribute(EtlTask.RULE_ID));
        v.put("postprocess_mode", task.attribute(EtlTask.POSTPROCESS_MODE));
        v.put("submitted_by", task.attribute(EtlAccess.SUBMITTED_BY));
        v.put("status", fields.get("status"));
        v.put("phase", fields.get("phase"));
        v.put("progress", progress(task));
        v.put("attempt_ocr", Integer.parseInt(fields.get(EtlTask.ATTEMPT_OCR)));
        v.put("attempt_postprocess", Integer.parseInt(fields.get(EtlTask.ATTEMPT_POSTPROCESS)));
        v.put("ocr_recoveries", EtlStages.count(task, LostOcrRecovery.RECOVERIES));
        v.put(EtlTask.MARKDOWN_KEY, fields.get(EtlTask.MARKDOWN_KEY));
        v.put("result_key", task.attribute(EtlHost.RESULT_KEY));
        @Nullable String code = fields.get("error_code");
        @Nullable String message = fields.get("error_message");
        TaskError last = task.record().lastError();
        boolean kept = "true".equals(task.attribute(SHOW_LAST_ERROR)) && !EnumSet.of(State.COMPLETED, State.CANCELLED).contains(task.state());
        if (code == null && kept && last != null) {
            code = last.code();
            message = last.message();
        }
        v.put("error_code", code);
        v.put("error_message", message);
        v.put("created_at", task.record().createdAt().toString());
        v.put("updated_at", task.record().updatedAt().toString());
        v.put("version", task.version());
        return v;
    }

    private static String truncate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}
