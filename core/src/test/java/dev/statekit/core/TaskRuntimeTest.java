package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaskRuntimeTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final List<Long> started = new ArrayList<>();

    TaskRuntime runtime(Worker<Jobs.State> worker, QueueOptions options) {
        return TaskRuntime.builder(engine).owner("r1").executor(executor).workers(2)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).seed(7)
                .register(Jobs.MACHINE, "q", worker, options).build();
    }

    @Test
    void createdTaskRunsToDoneWithoutPolling() {
        TaskRuntime rt = runtime(ctx -> {
            started.add(ctx.task().id());
            return WorkResult.success(java.util.Map.of("out", "ok"));
        }, QueueOptions.defaults());
        rt.start();
        long id = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        executor.runAll();
        Task<Jobs.State> t = engine.find(Jobs.MACHINE, id).orElseThrow();
        assertThat(t.state()).isEqualTo(Jobs.State.DONE);
        assertThat(t.attribute("out")).isEqualTo("ok");
        assertThat(t.record().lease()).isNull();
        assertThat(t.record().attempts()).isEqualTo(1);
        assertThat(engine.history(id)).extracting(h -> h.event()).containsExactly("START", "COMPLETE");
        assertThat(started).containsExactly(id);
    }

    @Test
    void retryableFailuresWaitTheBackoffThenFailWhenExhausted() {
        TaskRuntime rt = runtime(ctx -> WorkResult.retryable("AI_RATE_LIMITED", "429"), QueueOptions.defaults());
        rt.start();
        long id = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        executor.runAll();
        assertThat(engine.find(Jobs.MACHINE, id).orElseThrow().state()).isEqualTo(Jobs.State.RETRYING);
        for (int i = 0; i < 10; i++) {
            clock.advance(Duration.ofSeconds(31));
            executor.runAll();
        }
        Task<Jobs.State> t = engine.find(Jobs.MACHINE, id).orElseThrow();
        assertThat(t.state()).isEqualTo(Jobs.State.FAILED);
        assertThat(t.record().retries()).isEqualTo(3);
        assertThat(t.record().attempts()).isEqualTo(4);
        assertThat(t.record().lastError().code()).isEqualTo("AI_RATE_LIMITED");
    }
}
