package dev.statekit.examples.scenarios;

import static dev.statekit.examples.scenarios.Scripts.events;
import static dev.statekit.examples.scenarios.Scripts.last;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.Event;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The Read→Do seed (002): items processed under a lease, the READY gate, failures by step, idempotent requests. */
class ReadDoScenariosTest {
    /** One step run: the item's URL, the step and the run it belongs to. */
    record StepRun(String url, String step, String runId) {}

    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final List<StepRun> stepRuns = new ArrayList<>();
    /** Failures keyed by {@code url/step/runId}. */
    final Map<String, Exception> failures = new HashMap<>();

    final ReadDoHost.Steps steps = (step, item, runId) -> {
        String url = String.valueOf(item.attribute(ReadDoHost.URL));
        stepRuns.add(new StepRun(url, step, runId));
        Exception e = failures.get(url + "/" + step + "/" + runId);
        if (e != null) throw e;
        return step + " of " + url + " in " + runId;
    };

    ReadDoHost host(String owner, ManualClock c, ManualExecutor exec) {
        return new ReadDoHost(store, c, exec, owner, steps);
    }

    long ready(ReadDoHost host, String url) {
        long id = host.capture(url, "capture-" + url).task().id();
        executor.runAll();
        assertThat(host.item(id).state()).isEqualTo(State.READY);
        return id;
    }

    @Test
    void readDoItemRunsThePipelineUnderALeaseIntoReady() {
        ReadDoHost host = host("worker-1", clock, executor);
        host.start();
        long id = host.capture("https://example.org/a", "capture-a").task().id();
        assertThat(host.capture("https://example.org/a", "capture-a").created()).as("same capture_id").isFalse();
        assertThat(host.item(id).state()).isEqualTo(State.QUEUED);
        executor.runAll();

        Task<State> item = host.item(id);
        assertThat(item.state()).isEqualTo(State.READY);
        assertThat(item.record().lease()).isNull();
        assertThat(item.attribute(ReadDoItem.RUN_ID)).isEqualTo("run-1");
        assertThat(item.attribute(ReadDoItem.RUNS)).isEqualTo("1");
        for (String artifact : ReadDoItem.REQUIRED_ARTIFACTS) {
            assertThat(item.attribute(ReadDoItem.artifactKey(artifact))).as(artifact).isEqualTo("run-1");
        }
        assertThat(item.attribute("summary")).isEqualTo("summarize of https://example.org/a in run-1");
        assertThat(events(host.engine(), id)).containsExactly("ENQUEUE", "LEASE", "PIPELINE_SUCCEEDED");
        assertThat(host.engine().history(id).get(1).actor()).isEqualTo("worker-1");
        assertThat(stepRuns).extracting(StepRun::step).containsExactlyElementsOf(ReadDoHost.STEPS);
    }

    @Test
    void readDoLeaseTimeoutRequeuesItemAndFencesTheOldWorker() {
        // Two worker processes share the store; each has its own clock, so that process A can
        // stand still (a long pause: no heartbeat, no progress) while time passes for process B.
        ManualClock clockA = new ManualClock();
        ManualClock clockB = new ManualClock();
        ManualExecutor executorA = new ManualExecutor();
        ManualExecutor executorB = new ManualExecutor();
        ReadDoHost a = host("worker-a", clockA, executorA);
        ReadDoHost b = host("worker-b", clockB, executorB);
        a.start();
        long id = a.capture("https://example.org/long-read", "capture-1").task().id();
        executorA.runNext();                    // A leases the item; its worker has not run yet
        Task<State> leased = a.item(id);
        assertThat(leased.state()).isEqualTo(State.PROCESSING);
        long tokenA = leased.record().lease().fencingToken();
        assertThat(leased.record().lease().owner()).isEqualTo("worker-a");

        b.start();
        executorB.runAll();
        assertThat(b.item(id).record().lease().owner()).as("a held lease is not taken").isEqualTo("worker-a");

        clockB.advance(Duration.ofSeconds(31));  // A's lease of 30 s expires; B's poll recovers the item and leases it
        executorB.runAll();
        Task<State> ready = b.item(id);
        assertThat(ready.state()).isEqualTo(State.READY);
        assertThat(ready.attribute(ReadDoItem.RUN_ID)).isEqualTo("run-2");
        assertThat(ready.record().attempts()).isEqualTo(2);
        for (String artifact : ReadDoItem.REQUIRED_ARTIFACTS) {
            assertThat(ready.attribute(ReadDoItem.artifactKey(artifact))).isEqualTo("run-2");
        }
        List<HistoryEntry> history = b.engine().history(id);
        assertThat(history).extracting(HistoryEntry::event)
                .containsExactly("ENQUEUE", "LEASE", "LEASE_EXPIRED", "LEASE", "PIPELINE_SUCCEEDED");
        assertThat(history).extracting(HistoryEntry::actor)
                .containsExactly(null, "worker-a", "worker-b", "worker-b", "worker-b");
        assertThat(history.get(2).reason()).contains("lease " + tokenA).contains("expired");

        executorA.runAll();                     // A wakes up and finishes its stale run-1
        assertThat(stepRuns).filteredOn(r -> r.runId().equals("run-1")).hasSize(ReadDoHost.STEPS.size());
        Task<State> after = b.item(id);
        assertThat(after.version()).as("the stale result is discarded").isEqualTo(ready.version());
        assertThat(after.attribute(ReadDoItem.RUN_ID)).isEqualTo("run-2");
        assertThat(after.attribute("card")).isEqualTo("card of https://example.org/long-read in run-2");
        assertThat(b.engine().history(id)).hasSize(5);
    }

    @Test
    void readDoProcessWhileProcessingIsRefusedWithProcessingInProgress() {
        ReadDoHost host = host("worker-1", clock, executor);
        host.start();
        long id = host.capture("https://example.org/b", "capture-b").task().id();
        executor.runNext();
        assertThat(host.item(id).state()).isEqualTo(State.PROCESSING);

        Outcome<State> process = host.process(id, "request-1", "alice");
        assertThat(process).isInstanceOf(Outcome.Refused.class);
        Outcome.Refused<State> refused = (Outcome.Refused<State>) process;
        assertThat(refused.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(refused.reasonCode()).isEqualTo(ReadDoItem.PROCESSING_IN_PROGRESS);
        assertThat(refused.code().httpStatus()).isEqualTo(409);
        Outcome<State> archive = host.archive(id, "alice");
        assertThat(((Outcome.Refused<State>) archive).reasonCode()).isEqualTo(ReadDoItem.PROCESSING_IN_PROGRESS);

        executor.runAll();
        assertThat(host.item(id).state()).isEqualTo(State.READY);
        assertThat(stepRuns).filteredOn(r -> r.step().equals("extract")).hasSize(1);
        assertThat(events(host.engine(), id)).containsExactly("ENQUEUE", "LEASE", "PIPELINE_SUCCEEDED");
    }

    @Test
    void readDoProcessRequestIsQueuedOncePerRequestId() {
        ReadDoHost host = host("worker-1", clock, executor);
        host.start();
        long id = ready(host, "https://example.org/c");
        Outcome<State> regenerate = host.process(id, "request-7", "alice");
        assertThat(regenerate.orElseThrow().task().state()).isEqualTo(State.QUEUED);
        assertThat(host.process(id, "request-7", "alice").orElseThrow().replayed()).isTrue();
        executor.runAll();
        Task<State> item = host.item(id);
        assertThat(item.state()).isEqualTo(State.READY);
        assertThat(item.attribute(ReadDoItem.RUN_ID)).isEqualTo("run-2");

        Outcome.Applied<State> again = host.process(id, "request-7", "alice").orElseThrow();
        assertThat(again.replayed()).isTrue();
        assertThat(host.item(id).state()).as("a repeated request queues nothing").isEqualTo(State.READY);
        executor.runAll();
        assertThat(host.item(id).attribute(ReadDoItem.RUN_ID)).isEqualTo("run-2");
        assertThat(stepRuns).filteredOn(r -> r.step().equals("card")).extracting(StepRun::runId).containsExactly("run-1", "run-2");
    }

    @Test
    void readDoExportIsIdempotentPerExportKey() {
        ReadDoHost host = host("worker-1", clock, executor);
        host.start();
        long id = ready(host, "https://example.org/d");

        ReadDoHost.Export first = host.export(id, "export-key-1", "alice");
        assertThat(first.outcome().orElseThrow().task().state()).isEqualTo(State.SHIPPED);
        assertThat(first.written()).isTrue();
        assertThat(first.file()).isNotNull();
        assertThat(host.item(id).attribute(ReadDoHost.EXPORT_FILE)).isEqualTo(first.file());
        int history = host.engine().history(id).size();

        ReadDoHost.Export repeated = host.export(id, "export-key-1", "alice");
        assertThat(repeated.outcome().orElseThrow().replayed()).isTrue();
        assertThat(repeated.written()).isFalse();
        assertThat(repeated.file()).isEqualTo(first.file());
        assertThat(host.filesWritten()).isEqualTo(1);
        assertThat(host.engine().history(id)).hasSize(history);

        ReadDoHost.Export reExport = host.export(id, "export-key-2", "alice");
        Outcome.Applied<State> applied = reExport.outcome().orElseThrow();
        assertThat(applied.replayed()).isFalse();
        assertThat(applied.entry().from()).isEqualTo("SHIPPED");
        assertThat(applied.entry().to()).isEqualTo("SHIPPED");
        assertThat(reExport.written()).isTrue();
        assertThat(reExport.file()).isNotEqualTo(first.file());
        assertThat(host.filesWritten()).isEqualTo(2);

        long queued = host.capture("https://example.org/e", "capture-e").task().id();
        ReadDoHost.Export refused = host.export(queued, "export-key-3", "alice");
        assertThat(refused.outcome()).isInstanceOf(Outcome.Refused.class);
        assertThat(refused.file()).isNull();
        assertThat(host.filesWritten()).as("nothing written for a refused export").isEqualTo(2);
    }

    @Test
    void readDoStepFailureLandsInTheFailedStateOfItsStepAndAutoRetryRequeuesIt() {
        ReadDoHost host = host("worker-1", clock, executor);
        host.start();
        failures.put("https://example.org/x/extract/run-1",
                new ReadDoHost.StepException("EXTRACTION_FETCH_FAILED", "the page answered 503", true));
        failures.put("https://example.org/y/score/run-1", new TimeoutException("the model did not answer"));
        failures.put("https://example.org/z/todos/run-1",
                new ReadDoHost.StepException("AI_SCHEMA_INVALID", "two todos, 3 to 7 expected", false));
        long x = host.capture("https://example.org/x", "capture-x").task().id();
        long y = host.capture("https://example.org/y", "capture-y").task().id();
        long z = host.capture("https://example.org/z", "capture-z").task().id();
        executor.runAll();

        Task<State> extraction = host.item(x);
        assertThat(extraction.state()).isEqualTo(State.FAILED_EXTRACTION);
        assertThat(ReadDoHost.failure(extraction)).containsEntry("failed_step", "extract")
                .containsEntry("error_code", "EXTRACTION_FETCH_FAILED").containsEntry("message", "the page answered 503")
                .containsEntry("retryable", "true");
        assertThat(extraction.record().lastError().step()).isEqualTo("extract");
        assertThat(last(host.engine(), x).event()).isEqualTo("STEP_FAILED");
        Task<State> timeout = host.item(y);
        assertThat(timeout.state()).isEqualTo(State.FAILED_AI);
        assertThat(ReadDoHost.failure(timeout)).containsEntry("failed_step", "score").containsEntry("error_code", "TIMEOUT")
                .containsEntry("retryable", "true");
        Task<State> invalid = host.item(z);
        assertThat(invalid.state()).isEqualTo(State.FAILED_AI);
        assertThat(ReadDoHost.failure(invalid)).containsEntry("retryable", "false");
        assertThat(invalid.attribute(ReadDoItem.RUN_ID)).isEqualTo("run-1");

        Command system = Command.system().reason("auto-retry");
        assertThat(host.engine().fire(ReadDoItem.MACHINE, x, Event.AUTO_RETRY, system).isApplied()).isTrue();
        assertThat(host.engine().fire(ReadDoItem.MACHINE, y, Event.AUTO_RETRY, system).isApplied()).isTrue();
        Outcome<State> notRetryable = host.engine().fire(ReadDoItem.MACHINE, z, Event.AUTO_RETRY, system);
        assertThat(((Outcome.Refused<State>) notRetryable).reasonCode()).isEqualTo(ReadDoItem.NOT_RETRYABLE);
        executor.runAll();
        assertThat(host.item(x).state()).isEqualTo(State.READY);
        assertThat(host.item(x).attribute(ReadDoItem.RUN_ID)).isEqualTo("run-2");
        assertThat(ReadDoHost.failure(host.item(x))).isEmpty();
        assertThat(host.item(y).state()).isEqualTo(State.READY);
        assertThat(host.item(z).state()).isEqualTo(State.FAILED_AI);
    }

    @Test
    void readDoExportReplayedOnAnotherInstanceReturnsTheSameFile() {
        ReadDoHost host = host("worker-1", clock, executor);
        host.start();
        long id = ready(host, "https://example.org/e");
        ReadDoHost.Export first = host.export(id, "export-key-9", "alice");
        assertThat(first.file()).isNotNull();

        ReadDoHost other = host("worker-2", clock, new ManualExecutor());      // another instance, nothing in its memory
        ReadDoHost.Export replay = other.export(id, "export-key-9", "bob");
        assertThat(replay.outcome().orElseThrow().replayed()).isTrue();
        assertThat(replay.file()).isEqualTo(first.file());
        assertThat(replay.written()).isFalse();
        assertThat(other.filesWritten()).isZero();
    }
}
