package dev.statekit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.BulkCount;
import dev.statekit.core.ops.BulkResult;
import dev.statekit.core.ops.TaskFilter;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.TaskError;
import dev.statekit.store.TriggerSource;
import dev.statekit.store.memory.InMemoryStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** docs/operations.md, "Bulk operations": its code stands in {@link #bulk}, which this test runs. */
class BulkOperationsPageTest {
    private static final Logger log = LoggerFactory.getLogger(BulkOperationsPageTest.class);
    static final String PAGE = "docs/operations.md";

    enum State { QUEUED, FAILED, DONE }

    enum Event { FAIL, RETRY, FINISH }

    static final Machine<State, Event> MACHINE = Machine.builder("mail", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.FAIL, State.FAILED, TriggerSource.SYSTEM)
            .transition(State.QUEUED, Event.FINISH, State.DONE, TriggerSource.SYSTEM)
            .transition(State.FAILED, Event.RETRY, State.QUEUED, TriggerSource.USER)
            .build();

    final ManualClock clock = new ManualClock(Instant.parse("2030-03-01T10:00:00Z"));
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();

    /** The page's example: count, confirm, retry what was counted; delete what finished before a month ago. */
    List<BulkResult> bulk(Instant since, Instant monthAgo) {
        TaskOperations ops = TaskOperations.of(engine).withBatchSize(500);
        TaskFilter<State, Event> failed = TaskFilter.of(MACHINE).states(State.FAILED).errorCode("RATE_LIMITED")
                .updatedBetween(since, null);
        BulkCount count = ops.count(failed);           // show count.tasks(), and ask
        BulkResult retried = ops.retryAll(failed.upTo(count.lastId()), Event.RETRY, false, Command.user("ana"));
        log.info("retried {} of {}; refused {}", retried.applied(), retried.matched(), retried.refusals());

        BulkResult deleted = ops.deleteAll(TaskFilter.of(MACHINE).states(State.DONE).updatedBetween(null, monthAgo),
                Command.user("ana"));
        return List.of(retried, deleted);
    }

    long failed(String code) {
        long id = engine.create(MACHINE, TaskSpec.defaults()).task().id();
        engine.fire(MACHINE, id, Event.FAIL, Command.system().error(new TaskError(code, "no", true, null)));
        return id;
    }

    @Test
    void theExampleRetriesTheCountedFailuresAndDeletesTheOldFinishedTasks() {
        Instant start = clock.now();
        long old = engine.create(MACHINE, TaskSpec.defaults()).task().id();
        engine.fire(MACHINE, old, Event.FINISH);
        clock.advance(Duration.ofDays(40));
        long limited = failed("RATE_LIMITED");
        long other = failed("TIMEOUT");
        long limitedToo = failed("RATE_LIMITED");

        List<BulkResult> results = bulk(start.plus(Duration.ofDays(39)), clock.now().minus(Duration.ofDays(30)));

        assertThat(results.get(0)).isEqualTo(new BulkResult(2, 2, 0, 0, Map.of(), 0, 0));
        assertThat(results.get(1)).isEqualTo(new BulkResult(1, 1, 0, 0, Map.of(), 0, 0));
        assertThat(engine.find(MACHINE, limited).orElseThrow().state()).isEqualTo(State.QUEUED);
        assertThat(engine.find(MACHINE, limitedToo).orElseThrow().state()).isEqualTo(State.QUEUED);
        assertThat(engine.find(MACHINE, other).orElseThrow().state()).isEqualTo(State.FAILED);
        assertThat(engine.find(MACHINE, old)).isEmpty();
    }

    @Test
    void theJavaOfTheSectionStandsLineForLineInTheExample() throws IOException {
        List<String> source = stripped(java.nio.file.Files.readAllLines(
                Markdown.ROOT.resolve("examples/src/test/java/dev/statekit/examples/docs/BulkOperationsPageTest.java")));
        List<List<String>> blocks = Markdown.blocks(Markdown.section(Markdown.read(PAGE), "Bulk operations"), "java");
        assertThat(blocks).as("java blocks of the section").isNotEmpty();
        for (List<String> block : blocks) {
            assertThat(Collections.indexOfSubList(source, stripped(block))).as("this block stands in the example:\n" + String.join("\n", block))
                    .isNotNegative();
        }
    }

    private static List<String> stripped(List<String> lines) {
        return lines.stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }
}
