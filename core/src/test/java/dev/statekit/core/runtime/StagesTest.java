package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.MachineDefinitionException;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One machine with two work stages (an OCR stage chained to a post-processing stage): each claimed
 * on its own queue by its own worker, with its own attempts, retries and recovery; the chain is a
 * row of the table written in one write; a retry from a stage keeps what earlier stages recorded.
 */
class StagesTest {
    enum S { OCR_PENDING, OCR_RUNNING, POST_PENDING, POST_RUNNING, DONE, FAILED }

    enum E { START_OCR, OCR_DONE, OCR_FAILED, START_POST, POST_DONE, POST_FAILED, POST_RELEASE, RETRY_POST }

    static final Machine<S, E> ETL = Machine.builder("etl", S.class, E.class)
            .initial(S.OCR_PENDING)
            .terminal(S.DONE)
            .succeeded(S.DONE).failed(S.FAILED)
            .transition(S.OCR_PENDING, E.START_OCR, S.OCR_RUNNING, SYSTEM)
            .transition(S.OCR_RUNNING, E.OCR_DONE, S.POST_PENDING, SYSTEM)
            .transition(S.OCR_RUNNING, E.OCR_FAILED, S.FAILED, SYSTEM)
            .transition(S.POST_PENDING, E.START_POST, S.POST_RUNNING, SYSTEM)
            .transition(S.POST_RUNNING, E.POST_DONE, S.DONE, SYSTEM)
            .transition(S.POST_RUNNING, E.POST_FAILED, S.FAILED, SYSTEM)
            .transition(S.POST_RUNNING, E.POST_RELEASE, S.POST_PENDING, SYSTEM)
            .transition(S.FAILED, E.RETRY_POST, S.POST_PENDING, USER)
            .stage("ocr", r -> r.queue("etl-ocr").claim(S.OCR_PENDING, E.START_OCR).success(E.OCR_DONE).fatal(E.OCR_FAILED)
                    .recoverByFailing())
            .stage("post", r -> r.queue("etl-post").claim(S.POST_PENDING, E.START_POST).success(E.POST_DONE).fatal(E.POST_FAILED)
                    .release(E.POST_RELEASE).recoverByRequeue())
            .build();

    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final List<String> ran = new ArrayList<>();

    TaskRuntime runtime(String owner, Worker<S> ocr, Worker<S> post) {
        return TaskRuntime.builder(engine).owner(owner).executor(executor).workers(2).leaseDuration(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).seed(5).registerStage(ETL, "ocr", ocr).registerStage(ETL, "post", post).build();
    }

    TaskRecord task(long id) {
        return store.find(id).orElseThrow();
    }

    @Test
    void eachStageRunsOnItsOwnQueueWithItsOwnWorkerAndAttempts() {
        TaskRuntime rt = runtime("r1", ctx -> {
            ran.add("ocr " + ctx.task().record().queue() + " attempt " + ctx.task().record().attempts());
            return WorkResult.success(Map.of("ocr_file", "out/1.txt"));
        }, ctx -> {
            ran.add("post " + ctx.task().record().queue() + " attempt " + ctx.task().record().attempts());
            return WorkResult.success(Map.of("post_file", "out/1.json"));
        });
        rt.start();
        executor.runAll();
        long id = engine.create(ETL).task().id();
        assertThat(task(id).queue()).isEqualTo("etl-ocr");
        executor.runAll();
        assertThat(ran).containsExactly("ocr etl-ocr attempt 1", "post etl-post attempt 1");
        TaskRecord done = task(id);
        assertThat(done.state()).isEqualTo("DONE");
        assertThat(done.attributes().asMap()).containsEntry("ocr_file", "out/1.txt").containsEntry("post_file", "out/1.json");
        assertThat(engine.history(id)).extracting(HistoryEntry::event).containsExactly("START_OCR", "OCR_DONE", "START_POST", "POST_DONE");
        rt.halt();
    }

    @Test
    void aStageLeftByADeadProcessIsRecoveredByItsOwnPolicyInAnotherAndRunsOnce() {
        long id = engine.create(ETL).task().id();
        TaskRuntime first = runtime("first", ctx -> WorkResult.success(Map.of("ocr_file", "a")), ctx -> {
            ran.add("first post");
            return WorkResult.success();
        });
        first.start();
        while (!task(id).state().equals("POST_RUNNING")) assertThat(executor.runNext()).isTrue();
        first.halt();                              // dies while post-processing: its lease is left behind
        executor.drop();
        assertThat(task(id).lease()).isNotNull();
        TaskRuntime second = runtime("second", ctx -> WorkResult.success(), ctx -> {
            ran.add("second post attempt " + ctx.task().record().attempts());
            return WorkResult.success();
        });
        second.start();
        executor.runAll();
        assertThat(task(id).state()).isEqualTo("POST_RUNNING");    // the lease has not expired: nobody else runs it
        clock.advance(Duration.ofSeconds(31));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo("DONE");
        assertThat(ran).containsExactly("second post attempt 2");
        assertThat(engine.history(id)).extracting(HistoryEntry::event)
                .containsExactly("START_OCR", "OCR_DONE", "START_POST", "POST_RELEASE", "START_POST", "POST_DONE");
        second.halt();
    }

    @Test
    void aRetryFromAStageIsARowOfTheTableAndKeepsWhatEarlierStagesRecorded() {
        long id = engine.create(ETL).task().id();
        engine.fire(ETL, id, E.START_OCR);
        engine.fire(ETL, id, E.OCR_DONE, Command.system().set("ocr_file", "out/1.txt"));
        engine.fire(ETL, id, E.START_POST);
        engine.fire(ETL, id, E.POST_FAILED, Command.system().error(new TaskError("LLM_DOWN", "503", true, null)));
        assertThat(engine.fire(ETL, id, E.RETRY_POST, Command.user("ann")).isApplied()).isTrue();
        TaskRecord t = task(id);
        assertThat(t.state()).isEqualTo("POST_PENDING");
        assertThat(t.queue()).isEqualTo("etl-post");
        assertThat(t.attempts()).isZero();
        assertThat(t.attributes().asMap()).containsEntry("ocr_file", "out/1.txt");
    }

    @Test
    void stagesAreCheckedLikeRunPoliciesAndMayNotShareAClaimableState() {
        assertThatThrownBy(() -> Machine.builder("bad", S.class, E.class)
                .initial(S.OCR_PENDING).terminal(S.DONE, S.FAILED, S.POST_RUNNING, S.POST_PENDING)
                .transition(S.OCR_PENDING, E.START_OCR, S.OCR_RUNNING, SYSTEM)
                .transition(S.OCR_RUNNING, E.OCR_DONE, S.DONE, SYSTEM)
                .transition(S.OCR_RUNNING, E.OCR_FAILED, S.FAILED, SYSTEM)
                .stage("a", r -> r.claim(S.OCR_PENDING, E.START_OCR).success(E.OCR_DONE).fatal(E.OCR_FAILED).recoverByFailing())
                .stage("b", r -> r.claim(S.OCR_PENDING, E.START_OCR).success(E.POST_DONE).fatal(E.OCR_FAILED).recoverByFailing())
                .build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessageContaining("stage b claims OCR_PENDING, which stage a claims too")
                .hasMessageContaining("stage b: run policy: the success event POST_DONE has no SYSTEM row from OCR_RUNNING");
        assertThatThrownBy(() -> TaskRuntime.builder(engine).registerStage(ETL, "nope", ctx -> WorkResult.success()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("its stages: [ocr, post]");
        assertThatThrownBy(() -> TaskRuntime.builder(engine).register(ETL, ctx -> WorkResult.success()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registerStage");
    }
}
