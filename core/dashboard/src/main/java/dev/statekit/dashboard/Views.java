package dev.statekit.dashboard;

import dev.statekit.core.Command;
import dev.statekit.core.Ending;
import dev.statekit.core.GroupProgress;
import dev.statekit.core.Guard;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.Task;
import dev.statekit.core.Transition;
import dev.statekit.core.Verdict;
import dev.statekit.core.ops.ScheduleView;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.ScheduleRecord;
import dev.statekit.store.StateCount;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The dashboard's JSON: tasks, machines, queues and progress as maps of strings, numbers and
 * booleans. Every value a task carries goes out as a JSON string; the page renders it as text.
 */
final class Views {
    /** How many attributes a task's line in a list shows. */
    static final int SUMMARY_ATTRIBUTES = 4;
    /** How long an attribute's value in a list may be before it is cut. */
    static final int SUMMARY_VALUE = 120;

    private Views() {}

    /** Returns a machine's definition for its diagram: states, rows, and what its tasks' children are. */
    static <S extends Enum<S>, E extends Enum<E>> Map<String, Object> machine(Machine<S, E> machine) {
        Map<String, Object> body = header(machine);
        List<Object> states = new ArrayList<>();
        for (S s : machine.states()) {
            Map<String, Object> state = state(machine, s);
            state.put("userEvents", userEvents(machine, s.name()));
            states.add(state);
        }
        body.put("states", states);
        List<Object> rows = new ArrayList<>();
        for (Transition<S, E> t : machine.transitions()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("from", t.from().name());
            row.put("event", t.event().name());
            row.put("to", t.to().name());
            List<String> sources = new ArrayList<>();
            for (TriggerSource source : t.sources()) sources.add(source.name());
            row.put("sources", sources);
            row.put("guard", t.guardName());
            row.put("label", t.label());
            rows.add(row);
        }
        body.put("transitions", rows);
        body.put("cancelEvent", machine.cancelEvent() == null ? null : machine.cancelEvent().name());
        return body;
    }

    /** Returns a machine with its tasks counted by state (every state, zero included) from {@code counts}. */
    static <S extends Enum<S>, E extends Enum<E>> Map<String, Object> machineCounts(Machine<S, E> machine, List<StateCount> counts) {
        Map<String, Object> body = header(machine);
        Set<String> claimable = claimStates(machine);
        long total = 0;
        List<Object> states = new ArrayList<>();
        for (S s : machine.states()) {
            long tasks = 0;
            long leased = 0;
            Instant oldest = null;
            for (StateCount c : counts) {
                if (!c.machine().equals(machine.name()) || !c.state().equals(s.name())) continue;
                tasks += c.tasks();
                leased += c.leased();
                if (claimable.contains(s.name())) oldest = earlier(oldest, c.oldestReady());
            }
            total += tasks;
            Map<String, Object> state = state(machine, s);
            state.put("tasks", tasks);
            state.put("leased", leased);
            state.put("claimable", claimable.contains(s.name()));
            // only a task a worker would claim waits; a finished task is never "ready"
            state.put("oldestReady", text(oldest));
            states.add(state);
        }
        // a state the machine no longer has, whose tasks await a migration
        Map<String, Long> unknown = new TreeMap<>();
        for (StateCount c : counts) {
            if (c.machine().equals(machine.name()) && machine.state(c.state()) == null) unknown.merge(c.state(), c.tasks(), Long::sum);
        }
        for (Map.Entry<String, Long> u : unknown.entrySet()) {
            Map<String, Object> state = new LinkedHashMap<>();
            state.put("name", u.getKey());
            state.put("unknown", true);
            state.put("tasks", u.getValue());
            states.add(state);
            total += u.getValue();
        }
        body.put("total", total);
        body.put("states", states);
        return body;
    }

    private static Map<String, Object> header(Machine<?, ?> machine) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", machine.name());
        body.put("version", machine.version());
        body.put("description", machine.description());
        body.put("initial", machine.initial().name());
        body.put("children", machine.children() == null ? null : machine.children().machine().name());
        return body;
    }

    private static <S extends Enum<S>, E extends Enum<E>> Map<String, Object> state(Machine<S, E> machine, S s) {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("name", s.name());
        state.put("initial", s == machine.initial());
        state.put("terminal", machine.isTerminal(s));
        Ending ending = machine.ending(s);
        state.put("ending", ending == null ? null : ending.name());
        state.put("retired", machine.retired().contains(s));
        state.put("running", machine.runPolicy() != null && machine.runPolicy().runningStates(machine).contains(s)
                || machine.stages().values().stream().anyMatch(p -> p.runningStates(machine).contains(s)));
        return state;
    }

    /**
     * Returns a queue: its control record and its tasks from {@code counts}. What waits (runnable,
     * unleased tasks, and how long the longest of them has waited) comes from {@code waiting} when
     * the dashboard has the runtime's metrics, else from the claim states of the machines' run
     * policies; a task in any other state (a finished one above all) never counts as waiting.
     */
    static Map<String, Object> queue(QueueRecord record, List<StateCount> counts, Map<String, Machine<?, ?>> machines, @Nullable Waiting waiting) {
        long active = 0;
        long leased = 0;
        long finished = 0;
        long waits = 0;
        Instant oldest = null;
        for (StateCount c : counts) {
            if (!c.queue().equals(record.name())) continue;
            Machine<?, ?> m = machines.get(c.machine());
            if (m != null && isTerminal(m, c.state())) {
                finished += c.tasks();
            } else {
                active += c.tasks();
            }
            leased += c.leased();
            if (m != null && claimStates(m).contains(c.state())) {
                waits += c.tasks() - c.leased();
                oldest = earlier(oldest, c.oldestReady());
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", record.name());
        body.put("paused", record.paused());
        body.put("pauseReason", record.pauseReason());
        body.put("concurrency", record.concurrency());
        body.put("active", active);
        body.put("leased", leased);
        body.put("finished", finished);
        body.put("waiting", waiting == null ? waits : waiting.tasks());
        body.put("oldestWaiting", text(waiting == null ? oldest : waiting.oldest()));
        body.put("waitingFrom", waiting == null ? "claim-states" : "runtime");
        return body;
    }

    /** What waits on one queue as the runtime's metrics count it: runnable tasks and the longest-waiting one's ready time. */
    record Waiting(long tasks, @Nullable Instant oldest) {}

    /** Returns the states a worker claims tasks from: those of the machine's run policy and of its stages. */
    static Set<String> claimStates(Machine<?, ?> machine) {
        Set<String> states = new HashSet<>();
        if (machine.runPolicy() != null) for (Enum<?> s : machine.runPolicy().claims().keySet()) states.add(s.name());
        for (RunPolicy<?, ?> p : machine.stages().values()) for (Enum<?> s : p.claims().keySet()) states.add(s.name());
        return states;
    }

    private static <S extends Enum<S>> boolean isTerminal(Machine<S, ?> m, String state) {
        S s = m.state(state);
        return s != null && m.isTerminal(s);
    }

    /** Returns a task as a line of a list: its place, and its first attributes cut short. */
    static Map<String, Object> summary(TaskRecord r) {
        Map<String, Object> body = base(r);
        Map<String, String> attributes = new LinkedHashMap<>();
        for (Map.Entry<String, String> a : r.attributes().asMap().entrySet()) {
            if (attributes.size() == SUMMARY_ATTRIBUTES) break;
            String v = a.getValue();
            attributes.put(a.getKey(), v.length() > SUMMARY_VALUE ? v.substring(0, SUMMARY_VALUE) + "…" : v);
        }
        body.put("attributes", attributes);
        body.put("moreAttributes", Math.max(0, r.attributes().size() - SUMMARY_ATTRIBUTES));
        body.put("lastErrorCode", r.lastError() == null ? null : r.lastError().code());
        return body;
    }

    /** Returns every field of a task: attributes, payload, last error, lease. */
    static Map<String, Object> detail(TaskRecord r, Machine<?, ?> machine) {
        Map<String, Object> body = base(r);
        body.put("machineVersion", r.machineVersion());
        body.put("terminal", isTerminal(machine, r.state()));
        Ending ending = machine.ending(r.state());
        body.put("ending", ending == null ? null : ending.name());
        body.put("sequence", r.sequence());
        body.put("notBefore", text(r.notBefore()));
        body.put("idempotencyKey", r.idempotencyKey());
        body.put("createdAt", r.createdAt().toString());
        body.put("attributes", new LinkedHashMap<>(r.attributes().asMap()));
        body.put("payload", r.payload());
        TaskError e = r.lastError();
        body.put("lastError", e == null ? null : error(e));
        body.put("children", machine.children() == null ? null : machine.children().machine().name());
        return body;
    }

    /** Returns an error: its code, message, whether it is retryable, and its step. */
    static Map<String, Object> error(TaskError e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", e.code());
        error.put("message", e.message());
        error.put("retryable", e.retryable());
        error.put("step", e.step());
        return error;
    }

    /**
     * Returns whether task {@code r}'s last error still holds. A task keeps its last error after a
     * later success, as history; the error holds only while the task is in a state that ends in
     * failure, or while its last change is the failure that recorded it: an event of the run policy
     * (or a stage) that ends an attempt in error, or the children's {@code whenFailed}, into the
     * state the task is in now.
     */
    static boolean errorHolds(Machine<?, ?> machine, TaskRecord r, List<HistoryEntry> history) {
        if (r.lastError() == null) return false;
        if (machine.ending(r.state()) == Ending.FAILED) return true;
        if (history.isEmpty()) return false;
        HistoryEntry last = history.get(history.size() - 1);
        return last.to().equals(r.state()) && errorEvents(machine).contains(last.event());
    }

    /** Returns the events that record an error on a task: failures of an attempt, and a group's failure. */
    static Set<String> errorEvents(Machine<?, ?> machine) {
        Set<String> events = new HashSet<>();
        List<RunPolicy<?, ?>> policies = new ArrayList<>(machine.stages().values());
        if (machine.runPolicy() != null) policies.add(machine.runPolicy());
        for (RunPolicy<?, ?> p : policies) {
            for (Enum<?> e : java.util.Arrays.asList(p.retryable(), p.fatal(), p.interruptFail(), p.interruptRequeue())) {
                if (e != null) events.add(e.name());
            }
        }
        if (machine.children() != null) events.add(machine.children().whenFailed().name());
        return events;
    }

    /**
     * Returns the buttons of task {@code r}: each user event its state's rows allow, with a title in
     * words, the row's label, and whether its guards allow it now for {@code command} (guards are
     * pure, so they are checked here as the engine would check them; a guard that throws leaves the
     * engine to decide on the click), with the first refusal's code and message when none allows
     * it; and what it deletes, from {@code deletes}, when it deletes anything.
     */
    static <S extends Enum<S>, E extends Enum<E>> List<Object> actions(Machine<S, E> machine, TaskRecord r, Command command,
                                                                      Function<String, @Nullable String> deletes) {
        List<Object> out = new ArrayList<>();
        S state = machine.state(r.state());
        if (state == null) return out;
        Task<S> view = new Task<>(state, r);
        for (E event : machine.allowedEvents(state, TriggerSource.USER)) {
            boolean allowed = false;
            Verdict refusal = null;
            String label = null;
            for (Transition<S, E> t : machine.transitions(state, event)) {
                if (!t.allows(TriggerSource.USER)) continue;
                if (label == null) label = t.label();
                Guard<S> guard = t.guard();
                if (guard == null) {
                    allowed = true;
                    break;
                }
                Verdict v;
                try {
                    v = guard.check(view, command);
                } catch (RuntimeException e) {
                    allowed = true;
                    break;
                }
                if (v.allowed()) {
                    allowed = true;
                    break;
                }
                if (refusal == null) refusal = v;
            }
            Map<String, Object> action = new LinkedHashMap<>();
            action.put("event", event.name());
            action.put("title", title(event.name()));
            action.put("label", label);
            action.put("allowed", allowed || refusal == null);
            if (!allowed && refusal != null) {
                Map<String, Object> why = new LinkedHashMap<>();
                why.put("code", refusal.code());
                why.put("message", refusal.message());
                action.put("refusal", why);
            } else {
                action.put("refusal", null);
            }
            action.put("deletes", deletes.apply(event.name()));
            out.add(action);
        }
        return out;
    }

    /** Returns an event's name in words: {@code RETRY_FAILED} as {@code Retry failed}. */
    static String title(String event) {
        String words = event.toLowerCase(Locale.ROOT).replace('_', ' ').trim();
        return words.isEmpty() ? event : Character.toUpperCase(words.charAt(0)) + words.substring(1);
    }

    private static Map<String, Object> base(TaskRecord r) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", r.id());
        body.put("machine", r.machine());
        body.put("state", r.state());
        body.put("queue", r.queue());
        body.put("priority", r.priority());
        body.put("parentId", r.parentId());
        body.put("attempts", r.attempts());
        body.put("retries", r.retries());
        body.put("version", r.version());
        body.put("updatedAt", r.updatedAt().toString());
        Lease lease = r.lease();
        if (lease == null) {
            body.put("lease", null);
        } else {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("owner", lease.owner());
            l.put("fencingToken", lease.fencingToken());
            l.put("expiresAt", lease.expiresAt().toString());
            body.put("lease", l);
        }
        return body;
    }

    /** Returns one history entry. */
    static Map<String, Object> entry(HistoryEntry e) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("version", e.version());
        body.put("from", e.from());
        body.put("to", e.to());
        body.put("event", e.event());
        body.put("source", e.source().name());
        body.put("actor", e.actor());
        body.put("reason", e.reason());
        body.put("at", e.at().toString());
        body.put("commandKey", e.commandKey());
        return body;
    }

    /** Returns a group's progress, with the share of its members that have ended, in whole percent. */
    static Map<String, Object> progress(GroupProgress p) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("total", p.total());
        body.put("succeeded", p.succeeded());
        body.put("failed", p.failed());
        body.put("cancelled", p.cancelled());
        body.put("running", p.running());
        body.put("waiting", p.waiting());
        body.put("ended", p.ended());
        body.put("percent", p.total() == 0 ? 0 : p.ended() * 100 / p.total());
        body.put("sealed", p.sealed());
        body.put("resolution", p.resolution());
        body.put("byState", new TreeMap<>(p.byState()));
        return body;
    }

    /** Returns whether task {@code r} holds {@code needle} (lower case) in its id, state, key, attributes or last error. */
    static boolean matches(TaskRecord r, String needle) {
        if (Long.toString(r.id()).equals(needle)) return true;
        if (has(r.state(), needle) || has(r.idempotencyKey(), needle)) return true;
        for (Map.Entry<String, String> a : r.attributes().asMap().entrySet()) {
            if (has(a.getKey(), needle) || has(a.getValue(), needle)) return true;
        }
        TaskError e = r.lastError();
        return e != null && (has(e.code(), needle) || has(e.message(), needle));
    }

    /**
     * Returns a recurring schedule: its template's machine, queue and attributes, its timing and
     * misfire policy as text, whether it is paused, how far it has run, and its next occurrences.
     */
    static Map<String, Object> schedule(ScheduleView view) {
        ScheduleRecord r = view.record();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", r.name());
        body.put("machine", r.machine());
        body.put("queue", r.queue());
        body.put("priority", r.priority());
        body.put("kind", r.kind());
        body.put("timing", view.recurrence().schedule().describe());
        body.put("misfire", view.recurrence().misfire().toString());
        body.put("paused", r.paused());
        body.put("last", text(r.last()));
        body.put("nextDue", r.nextDue().toString());
        List<String> next = new ArrayList<>();
        for (Instant t : view.next()) next.add(t.toString());
        body.put("next", next);
        body.put("attributes", new TreeMap<>(r.attributes().asMap()));
        body.put("version", r.version());
        return body;
    }

    /** Returns the events a user may fire in the state named {@code stateName}. */
    static <S extends Enum<S>> List<String> userEvents(Machine<S, ?> machine, String stateName) {
        S state = machine.state(stateName);
        List<String> events = new ArrayList<>();
        if (state == null) return events;
        for (Enum<?> e : machine.allowedEvents(state, TriggerSource.USER)) events.add(e.name());
        return events;
    }

    /** Returns a small JSON map of an applied change: the task's id, state and version. */
    static Map<String, Object> applied(Outcome.Applied<?> applied) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", applied.task().id());
        body.put("state", applied.task().state().name());
        body.put("version", applied.task().version());
        body.put("replayed", applied.replayed());
        return body;
    }

    private static boolean has(@Nullable String text, String needle) {
        return text != null && text.toLowerCase(Locale.ROOT).contains(needle);
    }

    private static @Nullable Instant earlier(@Nullable Instant a, @Nullable Instant b) {
        if (a == null) return b;
        if (b == null) return a;
        return a.isBefore(b) ? a : b;
    }

    private static @Nullable String text(@Nullable Instant at) {
        return at == null ? null : at.toString();
    }
}
