package dev.statekit.dashboard;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ProcessRecord;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The processes screen's route and the attempts of a task's page, over a runtime on a manual clock. */
class ProcessRoutesTest {
    enum State { QUEUED, RUNNING, RETRYING, DONE, FAILED }

    enum Event { START, COMPLETE, RETRYABLE, FAIL, BACKOFF_OVER, RELEASE, RETRY }

    static final Machine<State, Event> JOB = Machine.builder("job", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.RETRYABLE, State.RETRYING, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RETRYING, Event.BACKOFF_OVER, State.QUEUED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).retryable(Event.RETRYABLE)
                    .fatal(Event.FAIL).release(Event.RELEASE).afterWait(State.RETRYING, Event.BACKOFF_OVER))
            .build();

    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final Dashboard dashboard = Dashboard.builder(engine).machines(JOB).basePath("/ops").build();

    static final class Broken extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Broken(String message) {
            super(message);
        }
    }

    TaskRuntime runtime(String owner, dev.statekit.core.spi.Worker<State> worker) {
        return TaskRuntime.builder(engine).owner(owner).executor(executor).workers(2).leaseDuration(Duration.ofSeconds(30))
                .heartbeat(Duration.ofSeconds(10)).pollInterval(Duration.ofSeconds(1)).seed(3)
                .classifier(e -> WorkResult.retryable("BROKEN", String.valueOf(e.getMessage())))
                .register(JOB, "jobs", worker, QueueOptions.defaults()).build();
    }

    Map<String, Object> get(String path) {
        DashboardResponse r = dashboard.handle(DashboardTest.get("/ops/api" + path));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return map(JsonText.read(r.text()));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @Test
    void listsEveryProcessWithItsStateLastHeartbeatAndLeases() {
        Instant t0 = clock.now();
        store.registerProcess(new ProcessRecord("crashed", "old-host", 99L, List.of("job"), List.of("jobs"), t0.minusSeconds(600),
                t0.minusSeconds(120), Duration.ofSeconds(30), null));
        TaskRuntime rt = runtime("worker-a", ctx -> WorkResult.success());
        rt.start();
        executor.runAll();
        long id = engine.create(JOB, TaskSpec.defaults().queue("jobs")).task().id();
        executor.runNext();      // claimed; its worker waits in the executor
        clock.advance(Duration.ofSeconds(4));

        Map<String, Object> body = get("/processes");
        assertThat(map(body.get("counts"))).containsEntry("alive", 1L).containsEntry("stopped", 0L).containsEntry("gone", 1L);
        List<Map<String, Object>> processes = list(body.get("processes"));
        assertThat(processes).extracting(p -> p.get("owner")).containsExactly("crashed", "worker-a");
        Map<String, Object> crashed = processes.get(0);
        assertThat(crashed).containsEntry("state", "gone").containsEntry("host", "old-host").containsEntry("pid", 99L)
                .containsEntry("lastSeenAgeMs", 124_000L).containsEntry("leaseCount", 0L);
        Map<String, Object> a = processes.get(1);
        assertThat(a).containsEntry("state", "alive").containsEntry("startedAt", t0.toString()).containsEntry("lastSeenAgeMs", 4_000L)
                .containsEntry("goneAfterMs", 30_000L).containsEntry("leaseCount", 1L).containsEntry("moreLeases", false);
        assertThat(a.get("machines")).isEqualTo(List.of("job"));
        assertThat(a.get("queues")).isEqualTo(List.of("jobs"));
        assertThat(list(a.get("leases"))).singleElement().satisfies(l -> {
            assertThat(l).containsEntry("id", id).containsEntry("machine", "job").containsEntry("state", "RUNNING")
                    .containsEntry("expired", false);
        });

        executor.runAll();
        rt.stop(Duration.ofSeconds(5));
        executor.runAll();
        Map<String, Object> after = list(get("/processes").get("processes")).get(1);
        assertThat(after).containsEntry("state", "stopped").containsEntry("leaseCount", 0L);
        assertThat(after.get("stoppedAt")).isEqualTo(clock.now().toString());
    }

    @Test
    void showsEachAttemptOfATaskWithItsDurationWorkerOutcomeAndStackTrace() {
        AtomicInteger calls = new AtomicInteger();
        TaskRuntime rt = runtime("worker-b", ctx -> {
            clock.advance(Duration.ofMillis(1500));
            if (calls.incrementAndGet() == 1) throw new Broken("disk full");
            return WorkResult.success();
        });
        rt.start();
        long id = engine.create(JOB, TaskSpec.defaults().queue("jobs")).task().id();
        executor.runAll();
        for (int i = 0; i < 30 && engine.find(JOB, id).orElseThrow().state() != State.DONE; i++) {
            clock.advance(Duration.ofSeconds(1));
            executor.runAll();
        }
        assertThat(engine.find(JOB, id).orElseThrow().state()).isEqualTo(State.DONE);

        Map<String, Object> body = get("/tasks/" + id + "/attempts");
        assertThat(body).containsEntry("taskId", id);
        List<Map<String, Object>> attempts = list(body.get("attempts"));
        assertThat(attempts).hasSize(2);
        Map<String, Object> first = attempts.get(0);
        assertThat(first).containsEntry("number", 1L).containsEntry("worker", "worker-b").containsEntry("running", false)
                .containsEntry("durationMs", 1500L);
        assertThat(map(first.get("outcome"))).containsEntry("event", "RETRYABLE").containsEntry("to", "RETRYING");
        Map<String, Object> error = map(first.get("error"));
        assertThat(error).containsEntry("code", "BROKEN").containsEntry("message", "disk full").containsEntry("retryable", true);
        assertThat((String) error.get("detail")).startsWith(Broken.class.getName() + ": disk full").contains("\tat ");
        Map<String, Object> second = attempts.get(1);
        assertThat(second).containsEntry("number", 2L).containsEntry("durationMs", 1500L).containsEntry("error", null);
        assertThat(map(second.get("outcome"))).containsEntry("event", "COMPLETE").containsEntry("to", "DONE");
        rt.halt();
    }

    @Test
    void theAttemptsOfAMissingTaskAreNotFound() {
        DashboardResponse r = dashboard.handle(DashboardTest.get("/ops/api/tasks/777/attempts"));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.text()).contains("\"error_code\":\"NOT_FOUND\"");
        assertThat(map(JsonText.read(dashboard.handle(DashboardTest.get("/ops/api/processes")).text())).get("processes")).isEqualTo(List.of());
    }
}
