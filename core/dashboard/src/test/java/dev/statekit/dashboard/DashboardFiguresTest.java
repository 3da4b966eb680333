package dev.statekit.dashboard;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.Verdict;
import dev.statekit.core.runtime.LastMinute;
import dev.statekit.core.runtime.QueueMetrics;
import dev.statekit.core.runtime.RuntimeMetrics;
import dev.statekit.store.TaskError;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What the dashboard's figures count and what its task page says: waiting tasks are runnable ones
 * only (never finished ones), an error is current only while it holds, and each button says what
 * it does, whether its guard allows it now, and what it deletes.
 */
class DashboardFiguresTest {
    enum State { QUEUED, RUNNING, DONE, FAILED, CANCELLED }

    enum Event { START, SUCCEED, FAIL, BACK_OFF, RETRY_FAILED, CANCEL, FINISH }

    static final Machine<State, Event> JOB = Machine.builder("job", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.CANCELLED)
            .succeeded(State.DONE).failed(State.FAILED).cancelled(State.CANCELLED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.QUEUED, Event.FINISH, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.SUCCEED, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.BACK_OFF, State.QUEUED, SYSTEM)
            .row(State.FAILED, Event.RETRY_FAILED, State.QUEUED).by(USER)
                .guard("not-locked", (task, command) -> Verdict.when(!"true".equals(task.attribute("locked")), "LOCKED", "a locked job is not retried"))
                .label("try the job again").add()
            .transition(State.FAILED, Event.CANCEL, State.CANCELLED, USER)
            .transition(State.QUEUED, Event.CANCEL, State.CANCELLED, USER)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.SUCCEED).fatal(Event.FAIL).retryable(Event.BACK_OFF))
            .build();

    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();

    Dashboard.Builder builder() {
        return Dashboard.builder(engine).machines(JOB).basePath("/ops").identity(r -> r.header("X-User"));
    }

    long job(Map<String, String> attributes) {
        return engine.create(JOB, TaskSpec.defaults().queue("jobs").attributes(attributes)).task().id();
    }

    long failedJob(Map<String, String> attributes) {
        long id = job(attributes);
        engine.fire(JOB, id, Event.START, Command.system()).orElseThrow();
        engine.fire(JOB, id, Event.FAIL, Command.system().error(new TaskError("BROKEN", "the job broke", false, null))).orElseThrow();
        return id;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> read(Dashboard dashboard, String path) {
        DashboardResponse r = dashboard.handle(DashboardTest.get(path));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return (Map<String, Object>) Objects.requireNonNull(JsonText.read(r.text()));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> queue(Map<String, Object> overview, String name) {
        for (Object q : (List<Object>) overview.get("queues")) if (((Map<String, Object>) q).get("name").equals(name)) return (Map<String, Object>) q;
        throw new AssertionError("no queue " + name);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> state(Map<String, Object> overview, String machine, String state) {
        for (Object m : (List<Object>) overview.get("machines")) {
            Map<String, Object> mm = (Map<String, Object>) m;
            if (!mm.get("name").equals(machine)) continue;
            for (Object s : (List<Object>) mm.get("states")) if (((Map<String, Object>) s).get("name").equals(state)) return (Map<String, Object>) s;
        }
        throw new AssertionError("no state " + state);
    }

    @Test
    void anIdleQueueOfFinishedTasksHasNothingWaitingAndNoOldestWaiting() {
        for (int i = 0; i < 3; i++) engine.fire(JOB, job(Map.of()), Event.FINISH, Command.system()).orElseThrow();
        Map<String, Object> overview = read(builder().build(), "/ops/api/overview");
        Map<String, Object> q = queue(overview, "jobs");
        assertThat(q.get("finished")).isEqualTo(3L);
        assertThat(q.get("waiting")).isEqualTo(0L);
        assertThat(q.get("oldestWaiting")).as("finished tasks never wait").isNull();
        assertThat(q.get("waitingFrom")).isEqualTo("claim-states");
        assertThat(state(overview, "job", "DONE").get("oldestReady")).isNull();
        assertThat(state(overview, "job", "DONE").get("claimable")).isEqualTo(false);

        long waiting = job(Map.of());
        failedJob(Map.of());
        overview = read(builder().build(), "/ops/api/overview");
        q = queue(overview, "jobs");
        assertThat(q.get("waiting")).as("the queued job, not the failed one").isEqualTo(1L);
        assertThat(q.get("oldestWaiting")).isEqualTo(engine.find(JOB, waiting).orElseThrow().record().updatedAt().toString());
        assertThat(state(overview, "job", "QUEUED").get("oldestReady")).isNotNull();
        assertThat(state(overview, "job", "FAILED").get("oldestReady")).isNull();
    }

    @Test
    void withTheRuntimesMetricsTheQueueShowsWhatTheRuntimeCountsAsWaiting() {
        engine.fire(JOB, job(Map.of()), Event.FINISH, Command.system()).orElseThrow();
        Instant at = Instant.parse("2024-05-01T10:00:00Z");
        RuntimeMetrics metrics = new RuntimeMetrics(at, List.of(
                new QueueMetrics("job", "jobs", Map.of("QUEUED", 7L, "DONE", 1L), 2, 5, false, 0, Duration.ofSeconds(90), LastMinute.NONE),
                new QueueMetrics("other-machine", "jobs", Map.of("QUEUED", 9L), 0, 9, false, 0, Duration.ofHours(1), LastMinute.NONE)));
        Map<String, Object> overview = read(builder().metrics(() -> metrics).build(), "/ops/api/overview");
        Map<String, Object> q = queue(overview, "jobs");
        assertThat(q.get("waiting")).as("the dashboard's machines only").isEqualTo(5L);
        assertThat(q.get("oldestWaiting")).isEqualTo("2024-05-01T09:58:30Z");
        assertThat(q.get("waitingFrom")).isEqualTo("runtime");
        assertThat(overview.get("waitingFrom")).isEqualTo("runtime");
    }

    @Test
    void anErrorIsCurrentWhileItHoldsAndResolvedOnceTheTaskMovedOn() {
        long id = failedJob(Map.of());
        Dashboard dashboard = builder().authorization(Authorization.allowAll()).build();
        Map<String, Object> failed = read(dashboard, "/ops/api/tasks/" + id);
        assertThat(failed.get("lastErrorHolds")).isEqualTo(true);
        assertThat(errorCode(failed.get("currentError"))).isEqualTo("BROKEN");

        engine.fire(JOB, id, Event.RETRY_FAILED, Command.user("ops")).orElseThrow();
        Map<String, Object> retried = read(dashboard, "/ops/api/tasks/" + id);
        assertThat(errorCode(retried.get("lastError"))).as("kept as history").isEqualTo("BROKEN");
        assertThat(retried.get("lastErrorHolds")).isEqualTo(false);
        assertThat(retried.get("currentError")).isNull();

        // a retryable failure back to the queue: the error holds while the task waits to run again
        engine.fire(JOB, id, Event.START, Command.system()).orElseThrow();
        engine.fire(JOB, id, Event.BACK_OFF, Command.system().error(new TaskError("FLAKY", "try later", true, null))).orElseThrow();
        Map<String, Object> backedOff = read(dashboard, "/ops/api/tasks/" + id);
        assertThat(errorCode(backedOff.get("currentError"))).isEqualTo("FLAKY");
        engine.fire(JOB, id, Event.START, Command.system()).orElseThrow();
        engine.fire(JOB, id, Event.SUCCEED, Command.system()).orElseThrow();
        Map<String, Object> done = read(dashboard, "/ops/api/tasks/" + id);
        assertThat(done.get("currentError")).isNull();
        assertThat(done.get("lastErrorHolds")).isEqualTo(false);
    }

    @Test
    void aBlockingErrorOfTheHostIsShownWithTheTask() {
        long id = job(Map.of());
        Dashboard dashboard = builder().blockingErrors(t -> t.id() == id
                ? List.of(new TaskError("OUTPUT_READ_ONLY", "the merge step cannot write its file", true, "merge")) : List.of()).build();
        Map<String, Object> task = read(dashboard, "/ops/api/tasks/" + id);
        assertThat((List<?>) task.get("blockingErrors")).hasSize(1);
        assertThat(errorCode(((List<?>) task.get("blockingErrors")).get(0))).isEqualTo("OUTPUT_READ_ONLY");
        assertThat((List<?>) read(dashboard, "/ops/api/tasks/" + job(Map.of())).get("blockingErrors")).isEmpty();
    }

    @Test
    @SuppressWarnings("unchecked")
    void eachButtonSaysWhatItDoesWhetherItsGuardAllowsItNowAndWhatItDeletes() {
        long locked = failedJob(Map.of("locked", "true"));
        long open = failedJob(Map.of());
        Dashboard dashboard = builder().authorization(Authorization.allowAll()).actions(new Actions() {
            @Override
            public dev.statekit.core.Outcome<?> fire(Machine<?, ?> machine, long id, String event, Command command) {
                return Actions.fire(engine, JOB, id, event, command);
            }

            @Override
            public @Nullable String deletes(Machine<?, ?> machine, long id, String event) {
                return event.equals("CANCEL") ? "job #" + id + " and its output" : null;
            }
        }).build();
        Map<String, Map<String, Object>> lockedActions = actions(read(dashboard, "/ops/api/tasks/" + locked));
        assertThat(lockedActions).containsOnlyKeys("RETRY_FAILED", "CANCEL");
        Map<String, Object> retry = lockedActions.get("RETRY_FAILED");
        assertThat(retry.get("title")).isEqualTo("Retry failed");
        assertThat(retry.get("label")).isEqualTo("try the job again");
        assertThat(retry.get("allowed")).isEqualTo(false);
        assertThat(((Map<String, Object>) retry.get("refusal")).get("code")).isEqualTo("LOCKED");
        assertThat(retry.get("deletes")).isNull();
        assertThat(lockedActions.get("CANCEL").get("allowed")).isEqualTo(true);
        assertThat(lockedActions.get("CANCEL").get("deletes")).isEqualTo("job #" + locked + " and its output");

        Map<String, Object> openRetry = actions(read(dashboard, "/ops/api/tasks/" + open)).get("RETRY_FAILED");
        assertThat(openRetry.get("allowed")).isEqualTo(true);
        assertThat(openRetry.get("refusal")).isNull();
        // what the dry run said is what the engine does
        assertThat(dashboard.handle(DashboardTest.post("/ops/api/tasks/" + locked + "/events", "{\"event\":\"RETRY_FAILED\"}", "ops")).status()).isEqualTo(409);
        assertThat(dashboard.handle(DashboardTest.post("/ops/api/tasks/" + open + "/events", "{\"event\":\"RETRY_FAILED\"}", "ops")).status()).isEqualTo(200);
    }

    @Test
    void aParentsChildrenAreListedByEveryStateAskedFor() {
        long failed = failedJob(Map.of());
        long cancelled = job(Map.of());
        engine.fire(JOB, cancelled, Event.CANCEL, Command.user("ops")).orElseThrow();
        job(Map.of());
        Map<String, Object> page = read(builder().build(), "/ops/api/tasks?machine=job&state=FAILED,CANCELLED");
        List<Object> ids = ((List<?>) page.get("items")).stream().map(t -> (Object) ((Map<?, ?>) t).get("id")).toList();
        assertThat(ids).containsExactly(failed, cancelled);
        DashboardResponse wrong = builder().build().handle(DashboardTest.get("/ops/api/tasks?machine=job&state=FAILED,NOPE"));
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.text()).contains("INVALID_QUERY", "NOPE");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> actions(Map<String, Object> task) {
        Map<String, Map<String, Object>> out = new java.util.LinkedHashMap<>();
        for (Object a : (List<Object>) task.get("actions")) out.put((String) ((Map<String, Object>) a).get("event"), (Map<String, Object>) a);
        return out;
    }

    @SuppressWarnings("unchecked")
    static @Nullable Object errorCode(@Nullable Object error) {
        return error == null ? null : ((Map<String, Object>) error).get("code");
    }
}
