package dev.statekit.examples.hosts.programs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.memory.InMemoryStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Runs each sample program end to end, on the system clock and real threads, and checks the
 * summary it prints. Each program waits for its own conditions with deadlines and ends by itself.
 */
class HostProgramsTest {
    /** What a program printed and returned. */
    record Printed(int status, String out) {}

    interface Program {
        int run(InMemoryStore store, PrintStream out) throws InterruptedException;
    }

    static Printed run(Program program) throws InterruptedException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = program.run(new InMemoryStore(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Printed(status, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void novelProoferProcessesEveryChunkThroughTheMergeGate() throws InterruptedException {
        Printed p = run(NovelProoferProgram::run);
        assertThat(p.out()).contains("summary: job 1 DONE, 6/6 chunks done, 2 retried after 429");
        assertThat(p.out()).contains("job 1 validated: 6 chunks, PAUSED (phase process)")
                .contains("job 1 processed, waiting at the merge gate: PAUSED (phase merge)")
                .contains("DONE (phase done)")
                .contains("START RETRYABLE_ERROR BACKOFF_DONE SUCCEED")
                .contains("the ferry left the harbour, and the lamps swung in the wind.")
                .doesNotContain("teh ");
        assertThat(p.status()).isZero();
    }

    @Test
    void readDoShipsEveryItemAfterRetryingTheFailedOne() throws InterruptedException {
        Printed p = run(ReadDoProgram::run);
        assertThat(p.out()).contains("summary: 3/3 items shipped, 1 failed and retried, 3 export files written, 1 export replayed");
        assertThat(p.out()).contains("(the same item, nothing queued)")
                .contains("FAILED_AI at step todos: AI_SCHEMA_INVALID")
                .contains("READY with run run-2")
                .contains("replayed, file exports/item-1-");
        assertThat(p.status()).isZero();
    }

    @Test
    void etlChainsPostProcessingAndRefusesToCancelAStartedTask() throws InterruptedException {
        Printed p = run(EtlProgram::run);
        assertThat(p.out()).contains("summary: 3 completed, 1 cancelled while pending, 1 cancel refused (TASK_ALREADY_STARTED), "
                + "post-processing retried on the kept OCR markdown, 3 OCR runs");
        assertThat(p.out()).contains("while MINERU_PARSING: REFUSED TASK_ALREADY_STARTED")
                .contains("while PENDING: CANCELLED")
                .contains("ocr attempts 1, post-processing attempts 2");
        assertThat(p.status()).isZero();
    }

    @Test
    void compressionRunsOneAtATimeByPriorityWithPauseAndARetry() throws InterruptedException {
        Printed p = run(CompressionProgram::run);
        assertThat(p.out()).contains("summary: 5/5 completed, at most 1 running at once, video.mov retried 1 time(s), "
                + "nothing started while paused: true");
        assertThat(p.out()).contains("start order: report.pdf, notes.txt, photos.tar");
        assertThat(p.status()).isZero();
    }
}
