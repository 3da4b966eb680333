package dev.statekit.examples.scenarios;

import static dev.statekit.examples.scenarios.Scripts.events;
import static dev.statekit.examples.scenarios.Scripts.last;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.GroupProgress;
import dev.statekit.core.Task;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferChunk.State;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.examples.hosts.NovelProoferHost;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The novel-proofer seed (000, 001): chunks of a job run by the runtime, pause, retry-failed, restart heal. */
class NovelProoferScenariosTest {
    /** One LLM call: the chunk, its attempt, and when. */
    record Call(int index, int attempt, Instant at) {}

    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final List<Call> calls = new ArrayList<>();
    /** Per chunk index, the failures its next LLM calls answer with; then it answers. */
    final Map<Integer, Deque<Exception>> failures = new HashMap<>();

    final NovelProoferHost.Llm llm = (index, attempt, model, text) -> {
        calls.add(new Call(index, attempt, clock.now()));
        Exception e = failures.getOrDefault(index, new ArrayDeque<>()).poll();
        if (e != null) throw e;
        return text.toUpperCase(java.util.Locale.ROOT);
    };

    NovelProoferHost host(String owner, ManualExecutor exec) {
        return new NovelProoferHost(store, clock, exec, owner, 2, llm);
    }

    void failNext(int index, Exception... errors) {
        failures.computeIfAbsent(index, k -> new ArrayDeque<>()).addAll(List.of(errors));
    }

    static ErrorClassifier.StatusException http(int status) {
        return new ErrorClassifier.StatusException(status, status == 429 ? "rate limited" : "status " + status);
    }

    /** Submits and validates a job of {@code chunks} paragraphs, then starts processing it. */
    static long processing(NovelProoferHost host, int chunks) {
        List<String> paragraphs = new ArrayList<>();
        for (int i = 0; i < chunks; i++) paragraphs.add("paragraph " + i);
        long job = host.submit("book", String.join("\n\n", paragraphs));
        host.validate(job).orElseThrow();
        assertThat(host.job(job).attribute(NovelProoferHost.TOTAL_CHUNKS)).isEqualTo(Integer.toString(chunks));
        host.startProcess(job, "alice").orElseThrow();
        return job;
    }

    static boolean atMergeGate(Task<NovelProoferJob.State> job) {
        return job.state() == NovelProoferJob.State.PAUSED && NovelProoferJob.MERGE.equals(job.attribute(NovelProoferJob.PHASE));
    }

    @Test
    void chunkRetriesInsideOneProcessingOn429ThenSucceedsKeepingRetriesAndLastError() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        failNext(0, http(429));
        long job = processing(host, 1);
        executor.runAll();

        Task<State> chunk = host.chunks(job).get(0);
        Instant failedAt = clock.now();
        assertThat(chunk.state()).isEqualTo(State.RETRYING);
        assertThat(chunk.record().lease()).isNull();
        assertThat(chunk.record().retries()).isEqualTo(1);
        assertThat(NovelProoferHost.chunkFields(chunk)).containsEntry("retries", "1")
                .containsEntry("last_error_code", "HTTP_429").containsEntry("last_error_message", "rate limited");
        Instant notBefore = chunk.record().notBefore();
        assertThat(notBefore).isBetween(failedAt.plusMillis(800), failedAt.plusSeconds(1));
        assertThat(events(host.engine(), chunk.id())).containsExactly("START", "RETRYABLE_ERROR");

        clock.advanceTo(notBefore.minusMillis(1));
        executor.runAll();
        assertThat(host.chunks(job).get(0).state()).isEqualTo(State.RETRYING);
        assertThat(calls).hasSize(1);

        clock.advanceTo(notBefore);
        executor.runAll();
        chunk = host.chunks(job).get(0);
        assertThat(chunk.state()).isEqualTo(State.DONE);
        assertThat(chunk.attribute(NovelProoferHost.OUTPUT)).isEqualTo("PARAGRAPH 0");
        assertThat(chunk.record().attempts()).isEqualTo(2);
        assertThat(chunk.record().retries()).isEqualTo(1);
        assertThat(NovelProoferHost.chunkFields(chunk)).containsEntry("retries", "1").containsEntry("last_error_code", "HTTP_429");
        assertThat(chunk.record().lastError().code()).isEqualTo("HTTP_429");
        assertThat(events(host.engine(), chunk.id())).containsExactly("START", "RETRYABLE_ERROR", "BACKOFF_DONE", "SUCCEED");
        assertThat(calls).extracting(Call::attempt).containsExactly(1, 2);
        assertThat(calls.get(1).at()).isEqualTo(notBefore);
        assertThat(atMergeGate(host.job(job))).isTrue();
    }

    @Test
    void chunkWhoseRetriesRunOutEndsInErrorAndFailsTheJob() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        failNext(0, http(429), http(503), http(429), http(429));
        failNext(1);
        long job = processing(host, 2);
        executor.runAll();
        for (int i = 0; i < 3; i++) {
            clock.advanceTo(host.chunks(job).get(0).record().notBefore());
            executor.runAll();
        }
        Task<State> chunk = host.chunks(job).get(0);
        assertThat(chunk.state()).isEqualTo(State.ERROR);
        assertThat(chunk.record().attempts()).isEqualTo(4);
        assertThat(chunk.record().retries()).isEqualTo(3);
        assertThat(NovelProoferHost.chunkFields(chunk)).containsEntry("retries", "3").containsEntry("last_error_code", "HTTP_429");
        assertThat(events(host.engine(), chunk.id())).containsExactly("START", "RETRYABLE_ERROR", "BACKOFF_DONE",
                "RETRYABLE_ERROR", "BACKOFF_DONE", "RETRYABLE_ERROR", "BACKOFF_DONE", "FAIL");
        assertThat(host.chunks(job).get(1).state()).isEqualTo(State.DONE);
        Task<NovelProoferJob.State> j = host.job(job);
        assertThat(j.state()).isEqualTo(NovelProoferJob.State.ERROR);
        assertThat(j.attribute(NovelProoferHost.DONE_CHUNKS)).isEqualTo("1");
    }

    @Test
    void pauseJobPutsInFlightChunksBackToPending() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        failNext(0, http(429));
        long job = processing(host, 3);
        executor.runNext();                     // a dispatch round: chunks 0 and 1 are claimed (two workers)
        executor.runNext();                     // chunk 0 is rate limited; its worker then takes chunk 2, which is done
        List<Task<State>> chunks = host.chunks(job);
        assertThat(chunks).extracting(Task::state).containsExactly(State.RETRYING, State.PROCESSING, State.DONE);
        long retrying = chunks.get(0).id();
        long inFlight = chunks.get(1).id();
        Instant notBefore = chunks.get(0).record().notBefore();

        host.pause(job, "alice").orElseThrow();
        Task<NovelProoferJob.State> paused = host.job(job);
        assertThat(paused.state()).isEqualTo(NovelProoferJob.State.PAUSED);
        assertThat(paused.attribute(NovelProoferJob.PHASE)).isEqualTo(NovelProoferJob.PROCESS);
        assertThat(host.engine().store().queue(NovelProoferHost.QUEUE).paused()).as("only this job's chunks are held").isFalse();
        Task<State> released = host.chunks(job).get(0);
        assertThat(released.state()).isEqualTo(State.PENDING);
        assertThat(last(host.engine(), retrying).reason()).isEqualTo("pause");
        assertThat(released.record().retries()).as("its next processing has a fresh retry budget").isZero();
        assertThat(released.record().lastError().code()).isEqualTo("HTTP_429");
        assertThat(released.record().notBefore()).as("a pause does not shorten the back-off").isEqualTo(notBefore);

        executor.runAll();                      // the processing chunk's worker sees the stop; the chunk is released
        assertThat(host.engine().store().group(job).orElseThrow().hold()).isTrue();
        Task<State> stopped = host.chunks(job).get(1);
        assertThat(stopped.state()).isEqualTo(State.PENDING);
        assertThat(stopped.record().lease()).isNull();
        assertThat(events(host.engine(), inFlight)).containsExactly("START", "RELEASE");
        assertThat(last(host.engine(), inFlight).reason()).isEqualTo("pause");
        assertThat(calls).extracting(Call::index).containsExactly(0, 2);

        clock.advance(Duration.ofSeconds(10));
        executor.runAll();
        assertThat(host.chunks(job)).extracting(Task::state).containsExactly(State.PENDING, State.PENDING, State.DONE);
        assertThat(calls).hasSize(2);

        host.startProcess(job, "alice").orElseThrow();
        executor.runAll();
        assertThat(host.chunks(job)).hasSize(3).extracting(Task::state).containsOnly(State.DONE);
        assertThat(host.chunks(job).get(0).record().attempts()).isEqualTo(2);
        assertThat(atMergeGate(host.job(job))).isTrue();
    }

    @Test
    void retryFailedChunksResetsOnlyFailedOnesToPending() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        failNext(1, http(400));
        long job = processing(host, 3);
        executor.runAll();
        List<Task<State>> chunks = host.chunks(job);
        assertThat(chunks).extracting(Task::state).containsExactly(State.DONE, State.ERROR, State.DONE);
        assertThat(chunks.get(1).record().retries()).as("a 400 is not retried").isZero();
        assertThat(chunks.get(1).record().lastError().code()).isEqualTo("HTTP_400");
        assertThat(host.job(job).state()).isEqualTo(NovelProoferJob.State.ERROR);
        assertThat(host.merge(job, "alice")).as("no merge while chunks failed").isEmpty();

        host.retryFailed(job, "alice").orElseThrow();
        Task<NovelProoferJob.State> j = host.job(job);
        assertThat(j.state()).isEqualTo(NovelProoferJob.State.RUNNING);
        assertThat(j.attribute(NovelProoferJob.PHASE)).isEqualTo(NovelProoferJob.PROCESS);
        assertThat(events(host.engine(), job)).endsWith("PROCESS_FAILED", "RETRY_FAILED", "START");
        List<Task<State>> retried = host.chunks(job);
        assertThat(retried).extracting(Task::state).containsExactly(State.DONE, State.PENDING, State.DONE);
        assertThat(retried.get(0).version()).isEqualTo(chunks.get(0).version());
        assertThat(retried.get(2).version()).isEqualTo(chunks.get(2).version());
        assertThat(last(host.engine(), retried.get(1).id()).actor()).isEqualTo("alice");
        assertThat(last(host.engine(), retried.get(1).id()).event()).isEqualTo("RETRY_FAILED");

        executor.runAll();
        assertThat(host.chunks(job)).extracting(Task::state).containsOnly(State.DONE);
        assertThat(calls).extracting(Call::index).containsExactlyInAnyOrder(0, 1, 2, 1);
        assertThat(host.chunks(job).get(0).version()).isEqualTo(chunks.get(0).version());
        assertThat(atMergeGate(host.job(job))).isTrue();
        assertThat(host.merge(job, "alice")).contains("PARAGRAPH 0\n\nPARAGRAPH 1\n\nPARAGRAPH 2");
        assertThat(host.job(job).state()).isEqualTo(NovelProoferJob.State.DONE);
    }

    @Test
    void restartHealReturnsInFlightChunksToPending() {
        NovelProoferHost crashed = host("proofer-1", executor);
        crashed.start();
        failNext(0, http(429));
        long job = processing(crashed, 2);
        executor.runNext();                     // chunks 0 and 1 are claimed
        executor.runNext();                     // chunk 0 is rate limited
        assertThat(crashed.chunks(job)).extracting(Task::state).containsExactly(State.RETRYING, State.PROCESSING);
        crashed.runtime().halt();
        executor.drop();                        // the work of the crashed process never runs

        ManualExecutor restartedExecutor = new ManualExecutor();
        NovelProoferHost restarted = host("proofer-1", restartedExecutor);
        restarted.start();
        List<Task<State>> healed = restarted.chunks(job);
        assertThat(healed).extracting(Task::state).containsExactly(State.PENDING, State.PENDING);
        assertThat(healed).allSatisfy(c -> assertThat(c.record().lease()).isNull());
        assertThat(events(restarted.engine(), healed.get(0).id())).containsExactly("START", "RETRYABLE_ERROR", "RELEASE");
        assertThat(last(restarted.engine(), healed.get(0).id()).reason()).isEqualTo("restart heal");
        assertThat(events(restarted.engine(), healed.get(1).id())).containsExactly("START", "RELEASE");
        assertThat(last(restarted.engine(), healed.get(1).id()).reason()).contains("restart of proofer-1");
        assertThat(healed.get(0).record().lastError().code()).isEqualTo("HTTP_429");
        assertThat(restarted.job(job).state()).isEqualTo(NovelProoferJob.State.RUNNING);

        clock.advance(Duration.ofSeconds(1));
        restartedExecutor.runAll();
        assertThat(restarted.chunks(job)).extracting(Task::state).containsExactly(State.DONE, State.DONE);
        assertThat(atMergeGate(restarted.job(job))).isTrue();
    }

    @Test
    void theMergeGateOpensOnlyWhenEveryChunkIsDone() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        failNext(1, http(504));
        long job = processing(host, 2);
        assertThat(host.merge(job, "alice")).as("no merge while processing").isEmpty();
        executor.runAll();
        assertThat(host.chunks(job)).extracting(Task::state).containsExactly(State.DONE, State.RETRYING);
        assertThat(host.job(job).state()).isEqualTo(NovelProoferJob.State.RUNNING);
        assertThat(host.merge(job, "alice")).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        Task<NovelProoferJob.State> gated = host.job(job);
        assertThat(atMergeGate(gated)).isTrue();
        assertThat(gated.attribute(NovelProoferHost.DONE_CHUNKS)).isEqualTo("2");
        assertThat(host.merge(job, "alice")).contains("PARAGRAPH 0\n\nPARAGRAPH 1");
        Task<NovelProoferJob.State> done = host.job(job);
        assertThat(done.state()).isEqualTo(NovelProoferJob.State.DONE);
        assertThat(done.attribute(NovelProoferJob.PHASE)).isEqualTo(NovelProoferJob.DONE);
        assertThat(events(host.engine(), job)).containsExactly("START", "VALIDATE_DONE", "START_PROCESS", "PROCESS_DONE",
                "MERGE", "MERGE_DONE");
    }

    @Test
    void aHostThatDiesAfterTheLastChunkCommitsLeavesTheJobToTheNextHost() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        long job = processing(host, 3);
        while (!host.chunks(job).stream().allMatch(c -> c.state() == State.DONE)) assertThat(executor.runNext()).isTrue();
        host.runtime().halt();                  // dies before any pass: nothing in memory carries the job on
        executor.drop();
        assertThat(host.job(job).state()).isEqualTo(NovelProoferJob.State.RUNNING);

        ManualExecutor other = new ManualExecutor();
        NovelProoferHost next = host("proofer-2", other);
        next.start();
        other.runAll();
        Task<NovelProoferJob.State> j = next.job(job);
        assertThat(atMergeGate(j)).isTrue();
        assertThat(j.attribute(NovelProoferHost.DONE_CHUNKS)).isEqualTo("3");
        assertThat(events(next.engine(), job)).containsOnlyOnce("PROCESS_DONE");
    }

    @Test
    void progressOfAJobIsOneReadOfItsChunkCounts() {
        NovelProoferHost host = host("proofer-1", executor);
        host.start();
        failNext(1, http(400));
        long job = processing(host, 4);
        executor.runAll();
        GroupProgress p = host.engine().progress(NovelProoferJob.MACHINE, job).orElseThrow();
        assertThat(p.total()).isEqualTo(4);
        assertThat(p.succeeded()).isEqualTo(3);
        assertThat(p.failed()).isEqualTo(1);
        assertThat(p.resolution()).isEqualTo(NovelProoferJob.Event.PROCESS_FAILED.name());
    }
}
