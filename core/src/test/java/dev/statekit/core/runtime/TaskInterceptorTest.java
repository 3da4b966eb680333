package dev.statekit.core.runtime;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.GroupsTest;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Interceptors: what they add to a task at its creation is written with it (the task's own
 * attributes win), for created tasks, a parent's children and tasks created in a caller's
 * transaction; the runtime runs every attempt inside them, in the order added, and what they
 * throw is classified as a worker's exception is.
 */
class TaskInterceptorTest {
    enum S { QUEUED, RUNNING, DONE, FAILED }

    enum E { START, COMPLETE, FAIL }

    static final Machine<S, E> WORK = Machine.builder("work", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM, USER)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL))
            .build();

    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final ManualExecutor executor = new ManualExecutor();
    final List<String> calls = new CopyOnWriteArrayList<>();

    /** Adds {@code key=value} to each task, notes each creation, and notes each attempt around it. */
    TaskInterceptor tagging(String name, String key, String value) {
        return new TaskInterceptor() {
            @Override
            public Map<String, String> onCreate(String machine, @Nullable Long parentId) {
                calls.add(name + " create " + machine + (parentId == null ? "" : " of " + parentId));
                return Map.of(key, value);
            }

            @Override
            public WorkResult aroundWork(WorkContext<?> context, Work work) throws Exception {
                calls.add(name + " before " + context.task().id() + " " + context.task().record().attributes().get(key));
                WorkResult result = work.run();
                calls.add(name + " after " + context.task().id() + " " + result.getClass().getSimpleName());
                return result;
            }
        };
    }

    TaskRuntime runtime(TransitionEngine engine, dev.statekit.core.spi.Worker<S> worker) {
        return TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).seed(1).register(WORK, worker).build();
    }

    @Test
    void whatAnInterceptorAddsIsWrittenWithTheTaskAndTheTasksOwnAttributesWin() {
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock)
                .interceptor(tagging("a", "trace", "from-a")).interceptor(tagging("b", "tenant", "t1")).build();
        long plain = engine.create(WORK).task().id();
        long own = engine.create(WORK, TaskSpec.defaults().attribute("trace", "mine")).task().id();
        assertThat(store.find(plain).orElseThrow().attributes().asMap()).containsEntry("trace", "from-a").containsEntry("tenant", "t1");
        assertThat(store.find(own).orElseThrow().attributes().asMap()).containsEntry("trace", "mine").containsEntry("tenant", "t1");
        assertThat(calls).containsExactly("a create work", "b create work", "a create work", "b create work");
        assertThat(store.history(plain)).isEmpty();      // attributes come with the creation, not as a change
    }

    @Test
    void childrenAndTasksCreatedInACallersTransactionGetThemToo() {
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock)
                .interceptor(tagging("a", "trace", "from-a")).build();
        long job = engine.create(GroupsTest.JOB).task().id();
        List<TaskSpec> specs = List.of(TaskSpec.defaults().attribute("index", "0"), TaskSpec.defaults().attribute("index", "1"));
        assertThat(engine.fireWithChildren(GroupsTest.JOB, job, GroupsTest.JobEvent.PROCESS, Command.user("ann"), specs)
                .isApplied()).isTrue();
        List<TaskRecord> children = store.query(dev.statekit.store.TaskQuery.all().machine(GroupsTest.CHUNK.name())).items();
        assertThat(children).hasSize(2).allSatisfy(c -> assertThat(c.attributes().get("trace")).isEqualTo("from-a"));
        assertThat(calls).contains("a create chunk of " + job);

        long inView = engine.within(store).create(WORK).task().id();
        assertThat(store.find(inView).orElseThrow().attributes().get("trace")).isEqualTo("from-a");
    }

    @Test
    void everyAttemptRunsInsideTheInterceptorsInTheOrderAdded() {
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock)
                .interceptor(tagging("outer", "trace", "x")).interceptor(tagging("inner", "tenant", "y")).build();
        long id = engine.create(WORK).task().id();
        calls.clear();
        List<String> seen = new ArrayList<>();
        TaskRuntime rt = runtime(engine, ctx -> {
            seen.add("worker " + ctx.task().record().attributes().get("trace"));
            calls.add("worker");
            return WorkResult.success();
        });
        rt.start();
        executor.runAll();
        assertThat(calls).containsExactly("outer before " + id + " x", "inner before " + id + " y", "worker",
                "inner after " + id + " Success", "outer after " + id + " Success");
        assertThat(seen).containsExactly("worker x");
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
        rt.halt();
    }

    @Test
    void anInterceptorThatThrowsFailsTheAttemptAsAWorkersExceptionWouldAndHarmsNothingElse() {
        TaskInterceptor broken = new TaskInterceptor() {
            @Override
            public WorkResult aroundWork(WorkContext<?> context, Work work) {
                throw new IllegalStateException("no tracer");
            }
        };
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).interceptor(broken).build();
        long first = engine.create(WORK).task().id();
        long second = engine.create(WORK).task().id();
        List<Long> ran = new ArrayList<>();
        TaskRuntime rt = runtime(engine, ctx -> {
            ran.add(ctx.task().id());
            return WorkResult.success();
        });
        rt.start();
        executor.runAll();
        assertThat(ran).isEmpty();
        for (long id : List.of(first, second)) {
            TaskRecord r = store.find(id).orElseThrow();
            assertThat(r.state()).isEqualTo("FAILED");
            assertThat(r.lastError()).isNotNull().satisfies(e -> assertThat(e.message()).contains("no tracer"));
        }
        rt.halt();
    }
}
