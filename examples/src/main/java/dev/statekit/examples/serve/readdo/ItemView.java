package dev.statekit.examples.serve.readdo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.Task;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.Event;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.serve.Json;
import dev.statekit.store.Lease;
import dev.statekit.store.TriggerSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An item as the API answers it: JSON maps of its fields. */
final class ItemView {
    /** The actions (routes) a user may take, by the event each fires, in the order they are listed. */
    private static final Map<Event, String> ACTIONS = actions();

    private ItemView() {}

    private static Map<Event, String> actions() {
        Map<Event, String> m = new LinkedHashMap<>();
        m.put(Event.PROCESS, "process");
        m.put(Event.EXPORT_SUCCEEDED, "export");
        m.put(Event.ARCHIVE, "archive");
        m.put(Event.UNARCHIVE, "unarchive");
        return m;
    }

    /** Returns the actions a user may take on an item in {@code state}: {@code process}, {@code export}, {@code archive}, {@code unarchive}. */
    static List<String> allowed(State state) {
        List<String> allowed = new ArrayList<>();
        var events = ReadDoItem.MACHINE.allowedEvents(state, TriggerSource.USER);
        ACTIONS.forEach((event, action) -> {
            if (events.contains(event)) allowed.add(action);
        });
        return allowed;
    }

    /** Returns the item's fields without its artifacts and exports, as a list shows it. */
    static Map<String, Object> summary(Task<State> item) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("item_id", item.id());
        m.put("url", item.attribute(ReadDoHost.URL));
        m.put("intent", item.attribute(Pipeline.INTENT));
        m.put("capture_id", item.record().idempotencyKey());
        m.put("state", item.state().name());
        m.put("allowed", allowed(item.state()));
        m.put("version", item.version());
        m.put("attempts", attempts(item));
        m.put("run_id", item.attribute(ReadDoItem.RUN_ID));
        Lease lease = item.record().lease();
        if (lease != null) {
            m.put("lease_owner", lease.owner());
            m.put("lease_expires_at", lease.expiresAt().toString());
        }
        Map<String, String> failure = ReadDoHost.failure(item);
        if (!failure.isEmpty()) {
            m.put("failed_step", failure.get("failed_step"));
            m.put("error_code", failure.get("error_code"));
            m.put("message", failure.get("message"));
            m.put("retryable", Boolean.parseBoolean(failure.get("retryable")));
        }
        String reason = item.attribute(ReadDoItem.ARCHIVE_REASON);
        if (item.state() == State.ARCHIVED && reason != null) m.put("archive_reason", reason);
        m.put("processed_by", item.attribute(ReadDoHost.PROCESSED_BY));
        m.put("created_at", item.record().createdAt().toString());
        m.put("updated_at", item.record().updatedAt().toString());
        return m;
    }

    /** Returns every field of the item: its summary, its artifacts and its exports. */
    static Map<String, Object> full(Task<State> item) {
        Map<String, Object> m = summary(item);
        String run = item.attribute(ReadDoItem.RUN_ID);
        Map<String, Object> artifacts = new LinkedHashMap<>();
        boolean complete = run != null;
        for (String name : ReadDoItem.REQUIRED_ARTIFACTS) {
            String value = item.attribute(name);
            String of = item.attribute(ReadDoItem.artifactKey(name));
            complete &= run != null && run.equals(of);
            if (value == null) continue;
            Map<String, Object> artifact = new LinkedHashMap<>();
            artifact.put("run_id", of);
            artifact.put("value", name.equals("summary") ? value : json(value));
            artifacts.put(name, artifact);
        }
        m.put("artifacts_complete", complete);
        m.put("artifacts", artifacts);
        List<Map<String, String>> exports = new ArrayList<>();
        ReadDoHost.exports(item).forEach((key, file) -> exports.add(Map.of("export_key", key, "file", file)));
        m.put("exports", exports);
        return m;
    }

    /** The contract's cumulative attempts: how many runs the item had. */
    static int attempts(Task<State> item) {
        String runs = item.attribute(ReadDoItem.RUNS);
        try {
            return runs == null ? 0 : Integer.parseInt(runs);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Returns {@code text} read as JSON, or as it is when it is not JSON. */
    private static Object json(String text) {
        try {
            JsonNode node = Json.mapper().readTree(text);
            return node == null ? text : node;
        } catch (IOException e) {
            return text;
        }
    }
}
