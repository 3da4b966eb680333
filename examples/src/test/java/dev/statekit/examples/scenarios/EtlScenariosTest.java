package dev.statekit.examples.scenarios;

import static dev.statekit.examples.scenarios.Scripts.events;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.runtime.Retention;
import dev.statekit.core.Task;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.store.memory.InMemoryStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The ETL seed (003): the OCR job chained with post-processing, cancel only while pending, retry by stage. */
class EtlScenariosTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final List<Long> ocrRuns = new ArrayList<>();
    final List<String> postRuns = new ArrayList<>();
    final Deque<Exception> ocrFailures = new ArrayDeque<>();
    final Deque<Exception> postFailures = new ArrayDeque<>();

    final EtlHost.Ocr ocr = task -> {
        ocrRuns.add(task.id());
        Exception e = ocrFailures.poll();
        if (e != null) throw e;
        return "s3://etl/" + task.id() + "/mineru-" + ocrRuns.size() + ".md";
    };
    final EtlHost.PostProcessor post = (task, markdownKey, mode) -> {
        postRuns.add(markdownKey + " " + mode);
        Exception e = postFailures.poll();
        if (e != null) throw e;
        return "s3://etl/" + task.id() + "/result.json";
    };

    EtlHost host(String owner, ManualExecutor exec) {
        return new EtlHost(store, clock, exec, owner, ocr, post);
    }

    static String refusal(CancelResult<State> r) {
        assertThat(r.status()).isEqualTo(CancelResult.Status.REFUSED);
        return ((Outcome.Refused<State>) java.util.Objects.requireNonNull(r.outcome())).reasonCode();
    }

    @Test
    void etlOcrSuccessChainsThePostprocessStage() {
        EtlHost host = host("etl-1", executor);
        host.start();
        long id = host.submit("invoice.pdf", null, "direct-json");
        executor.runAll();

        Task<State> t = host.task(id);
        assertThat(t.state()).isEqualTo(State.COMPLETED);
        assertThat(events(host.engine(), id)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_DONE");
        assertThat(t.attribute(EtlTask.MARKDOWN_KEY)).isEqualTo("s3://etl/" + id + "/mineru-1.md");
        assertThat(t.attribute(EtlHost.RESULT_KEY)).isEqualTo("s3://etl/" + id + "/result.json");
        assertThat(t.attribute(EtlTask.PHASE)).isEqualTo("finalize");
        assertThat(t.attribute(EtlTask.ATTEMPT_OCR)).isEqualTo("1");
        assertThat(t.attribute(EtlTask.ATTEMPT_POSTPROCESS)).isEqualTo("1");
        assertThat(postRuns).containsExactly("s3://etl/" + id + "/mineru-1.md skip");
        assertThat(t.record().lease()).isNull();
    }

    @Test
    void etlCancelOnlyWhilePending() {
        EtlHost host = host("etl-1", executor);
        host.start();
        host.pause();
        long pending = host.submit("a.pdf", "rule-1", "direct-json");
        CancelResult<State> cancelled = host.cancel(pending, "alice");
        assertThat(cancelled.status()).isEqualTo(CancelResult.Status.CANCELLED);
        assertThat(host.task(pending).state()).isEqualTo(State.CANCELLED);
        assertThat(Scripts.last(host.engine(), pending).actor()).isEqualTo("alice");

        long started = host.submit("b.pdf", "rule-1", "direct-json");
        host.resume();
        executor.runNext();                     // the OCR job of b.pdf is claimed
        assertThat(host.task(started).state()).isEqualTo(State.MINERU_PARSING);
        CancelResult<State> whileParsing = host.cancel(started, "alice");
        assertThat(refusal(whileParsing)).isEqualTo(EtlTask.TASK_ALREADY_STARTED);
        assertThat(whileParsing.outcome()).isInstanceOfSatisfying(Outcome.Refused.class,
                r -> assertThat(r.code().httpStatus()).isEqualTo(409));
        assertThat(host.task(started).state()).isEqualTo(State.MINERU_PARSING);

        executor.runNext();                     // the OCR job ends; post-processing is chained in the same write
        assertThat(host.task(started).state()).isEqualTo(State.POSTPROCESS_QUEUED);
        assertThat(EtlHost.fields(host.task(started))).containsEntry("status", "llm_processing");
        assertThat(refusal(host.cancel(started, "alice"))).isEqualTo(EtlTask.TASK_ALREADY_STARTED);

        executor.runAll();
        assertThat(host.task(started).state()).isEqualTo(State.COMPLETED);
        assertThat(refusal(host.cancel(started, "alice"))).isEqualTo(RefusalCode.ILLEGAL_TRANSITION.name());
        assertThat(ocrRuns).containsExactly(started);
        assertThat(events(host.engine(), pending)).containsExactly("CANCEL");
    }

    @Test
    void etlRetryFromPostprocessKeepsOcrArtifact() {
        EtlHost host = host("etl-1", executor);
        host.start();
        postFailures.add(new TimeoutException("the LLM did not answer"));
        long id = host.submit("contract.pdf", "contracts", "chunked-extract");
        executor.runAll();

        Task<State> failed = host.task(id);
        String markdown = failed.attribute(EtlTask.MARKDOWN_KEY);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.attribute(EtlTask.PHASE)).isEqualTo("postprocess");
        assertThat(EtlHost.fields(failed)).containsEntry("error_code", "TIMEOUT").containsEntry("error_message", "the LLM did not answer");
        assertThat(failed.record().lastError().step()).isEqualTo("postprocess");
        assertThat(markdown).isEqualTo("s3://etl/" + id + "/mineru-1.md");

        Outcome<State> retried = host.retry(id, "postprocess", "alice");
        Task<State> again = retried.orElseThrow().task();
        assertThat(again.state()).isEqualTo(State.POSTPROCESS_QUEUED);
        assertThat(EtlHost.fields(again)).doesNotContainKey("error_code");
        executor.runAll();

        Task<State> done = host.task(id);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(done.attribute(EtlTask.MARKDOWN_KEY)).isEqualTo(markdown);
        assertThat(done.attribute(EtlTask.ATTEMPT_OCR)).isEqualTo("1");
        assertThat(done.attribute(EtlTask.ATTEMPT_POSTPROCESS)).isEqualTo("2");
        assertThat(ocrRuns).as("OCR ran once").containsExactly(id);
        assertThat(postRuns).containsExactly(markdown + " chunked-extract", markdown + " chunked-extract");
        assertThat(events(host.engine(), id)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_FAILED", "RETRY",
                "START_POSTPROCESS", "POSTPROCESS_DONE");
    }

    @Test
    void etlOcrFailureCanOnlyBeRetriedFromMineru() {
        EtlHost host = host("etl-1", executor);
        host.start();
        ocrFailures.add(new IOException("MineRU is unreachable"));
        long id = host.submit("scan.png", null, "direct-json");
        executor.runAll();
        Task<State> failed = host.task(id);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(EtlHost.fields(failed)).containsEntry("error_code", "IO_ERROR");
        assertThat(failed.record().lastError().step()).isEqualTo("mineru");
        assertThat(failed.attribute(EtlTask.PHASE)).isEqualTo("ocr");
        assertThat(failed.attribute(EtlTask.ATTEMPT_OCR)).isEqualTo("1");
        assertThat(failed.record().retries()).as("no automatic retries").isZero();

        Outcome<State> postprocess = host.retry(id, "postprocess", "alice");
        assertThat(((Outcome.Refused<State>) postprocess).reasonCode()).isEqualTo(EtlTask.MARKDOWN_POINTER_MISSING);
        assertThat(host.retry(id, null, "alice").orElseThrow().task().state()).isEqualTo(State.PENDING);
        executor.runAll();
        Task<State> done = host.task(id);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(done.attribute(EtlTask.ATTEMPT_OCR)).isEqualTo("2");
        assertThat(done.attribute(EtlTask.MARKDOWN_KEY)).isEqualTo("s3://etl/" + id + "/mineru-2.md");
        assertThat(ocrRuns).containsExactly(id, id);
    }

    @Test
    void etlOcrJobLostToACrashFailsTheTaskForARetry() {
        EtlHost crashed = host("etl-1", executor);
        crashed.start();
        long id = crashed.submit("big.pdf", null, "direct-json");
        executor.runNext();
        assertThat(crashed.task(id).state()).isEqualTo(State.MINERU_PARSING);
        crashed.runtime().halt();
        executor.drop();

        ManualExecutor other = new ManualExecutor();
        EtlHost survivor = host("etl-2", other);
        survivor.start();
        other.runAll();
        assertThat(survivor.task(id).state()).isEqualTo(State.MINERU_PARSING);
        clock.advance(Duration.ofSeconds(31));
        other.runAll();
        Task<State> failed = survivor.task(id);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.record().lastError().code()).isEqualTo("LEASE_EXPIRED");
        assertThat(failed.record().lease()).isNull();

        survivor.retry(id, "mineru", "alice").orElseThrow();
        other.runAll();
        assertThat(survivor.task(id).state()).isEqualTo(State.COMPLETED);
        assertThat(events(survivor.engine(), id)).containsExactly("START_OCR", "OCR_FAILED", "RETRY", "START_OCR", "OCR_DONE",
                "START_POSTPROCESS", "POSTPROCESS_DONE");
    }

    @Test
    void etlPostprocessingLeftRunningByADeadHostIsRecoveredByAnotherAndRunsOnce() {
        EtlHost crashed = host("etl-1", executor);
        crashed.start();
        long id = crashed.submit("report.pdf", null, "direct-json");
        while (crashed.task(id).state() != State.LLM_PROCESSING) assertThat(executor.runNext()).isTrue();
        crashed.runtime().halt();
        executor.drop();                        // the post-processing worker is lost with the process
        assertThat(postRuns).isEmpty();
        assertThat(crashed.task(id).record().lease()).isNotNull();

        ManualExecutor survivorExecutor = new ManualExecutor();
        EtlHost survivor = host("etl-2", survivorExecutor);
        survivor.start();
        survivorExecutor.runAll();
        assertThat(survivor.task(id).state()).as("leased: nobody else runs it").isEqualTo(State.LLM_PROCESSING);
        assertThat(postRuns).isEmpty();
        clock.advance(Duration.ofSeconds(31));
        survivorExecutor.runAll();
        Task<State> done = survivor.task(id);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(done.attribute(EtlTask.ATTEMPT_POSTPROCESS)).isEqualTo("2");
        assertThat(postRuns).hasSize(1);
        assertThat(events(survivor.engine(), id)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_RELEASE",
                "START_POSTPROCESS", "POSTPROCESS_DONE");
    }

    @Test
    void etlRestartResumesPostprocessingLeftRunning() {
        EtlHost crashed = host("etl-1", executor);
        crashed.start();
        long id = crashed.submit("report.pdf", null, "direct-json");
        while (crashed.task(id).state() != State.LLM_PROCESSING) assertThat(executor.runNext()).isTrue();
        crashed.runtime().halt();
        executor.drop();                        // the post-processing worker is lost with the process
        assertThat(postRuns).isEmpty();

        ManualExecutor restarted = new ManualExecutor();
        EtlHost host = host("etl-1", restarted);   // the same owner: its leases are healed at start
        host.start();
        restarted.runAll();
        Task<State> done = host.task(id);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(postRuns).hasSize(1);
    }

    @Test
    void etlFinishedTasksLeaveTheHotStateAfterTheirShortTimeAndStayReadableFromTheArchive() {
        EtlHost host = new EtlHost(store, clock, executor, "etl-1", ocr, post, Retention.archive(Duration.ofHours(1)));
        host.start();
        long done = host.submit("invoice.pdf", null, "skip");
        executor.runAll();
        host.pause();
        long pending = host.submit("queued.pdf", null, "skip");
        assertThat(host.task(done).state()).isEqualTo(State.COMPLETED);

        for (int minute = 0; minute < 59; minute++) {
            clock.advance(Duration.ofMinutes(1));
            executor.runAll();
        }
        assertThat(store.find(done)).as("finished 59 minutes ago: still hot").isPresent();
        for (int minute = 0; minute < 2; minute++) {
            clock.advance(Duration.ofMinutes(1));
            executor.runAll();
        }
        assertThat(store.find(done)).as("out of the hot table").isEmpty();
        assertThat(store.findArchived(done)).isPresent();
        Task<State> archived = host.task(done);
        assertThat(archived.state()).isEqualTo(State.COMPLETED);
        assertThat(EtlHost.fields(archived)).containsEntry("status", "completed").containsEntry("phase", "finalize");
        assertThat(archived.attribute(EtlHost.RESULT_KEY)).isEqualTo("s3://etl/" + done + "/result.json");
        assertThat(events(host.engine(), done)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_DONE");
        assertThat(host.task(pending).state()).as("a pending task stays hot").isEqualTo(State.PENDING);
        assertThat(store.find(pending)).isPresent();
    }
}
