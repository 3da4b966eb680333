package dev.statekit.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.memory.InMemoryStore;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tracing within one process, on the in-memory store under a manual clock and executor: a task
 * created inside a request's span is created under a producer span of that trace, its attempt runs
 * in a consumer span whose parent is read back from the task's attributes, with the attempt's
 * result; what the worker does nests under it; a task created where no span is current starts its
 * own trace; a context the task's description carries wins.
 */
class TaskTracingTest {
    final Tracing tracing = new Tracing();
    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock)
            .interceptor(TaskTracing.of(tracing.sdk)).build();
    final ManualExecutor executor = new ManualExecutor();

    @AfterEach
    void close() {
        tracing.close();
    }

    void run(Worker<Reports.State> worker) {
        TaskRuntime rt = TaskRuntime.builder(engine).owner("node-1").executor(executor).workers(1)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).seed(1)
                .register(Reports.MACHINE, worker).build();
        rt.start();
        executor.runAll();
        rt.halt();
    }

    long createInRequest(String name) {
        Span request = tracing.sdk.getTracer("app").spanBuilder(name).setSpanKind(SpanKind.SERVER).startSpan();
        Scope scope = request.makeCurrent();
        try {
            return engine.create(Reports.MACHINE).task().id();
        } finally {
            scope.close();
            request.end();
        }
    }

    @Test
    void aTaskCreatedInARequestRunsInAConsumerSpanOfThatRequestsTrace() {
        long id = createInRequest("POST /reports");
        assertThat(store.find(id).orElseThrow().attributes().get("traceparent")).isNotNull();
        run(ctx -> {
            tracing.sdk.getTracer("app").spanBuilder("render").startSpan().end();      // the worker's own span
            return WorkResult.success();
        });

        SpanData request = tracing.span("POST /reports");
        SpanData create = tracing.span("create report");
        SpanData work = tracing.span("work report");
        SpanData render = tracing.span("render");
        assertThat(create.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(create.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(work.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(work.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(work.getParentSpanId()).isEqualTo(create.getSpanId());
        assertThat(render.getParentSpanId()).isEqualTo(work.getSpanId());
        assertThat(work.getAttributes().get(TaskTracing.TASK_ID)).isEqualTo(id);
        assertThat(work.getAttributes().get(TaskTracing.MACHINE)).isEqualTo("report");
        assertThat(work.getAttributes().get(TaskTracing.DESTINATION)).isEqualTo("report");
        assertThat(work.getAttributes().get(TaskTracing.ATTEMPT)).isEqualTo(1L);
        assertThat(work.getAttributes().get(TaskTracing.OWNER)).isEqualTo("node-1");
        assertThat(work.getAttributes().get(TaskTracing.RESULT)).isEqualTo("success");
        assertThat(work.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
    }

    @Test
    void aFailureEndsTheSpanInErrorWithItsCodeAndAThrownExceptionIsRecorded() {
        long failing = engine.create(Reports.MACHINE, TaskSpec.defaults().attribute("do", "fail")).task().id();
        long throwing = engine.create(Reports.MACHINE, TaskSpec.defaults().attribute("do", "throw")).task().id();
        run(ctx -> {
            if ("fail".equals(ctx.task().attribute("do"))) return WorkResult.fatal("BAD_INPUT", "no such report");
            throw new IllegalStateException("printer on fire");
        });
        SpanData failed = tracing.spans().stream().filter(s -> s.getName().equals("work report")
                && s.getAttributes().get(TaskTracing.TASK_ID) == failing).findFirst().orElseThrow();
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getStatus().getDescription()).isEqualTo("BAD_INPUT: no such report");
        assertThat(failed.getAttributes().get(TaskTracing.ERROR_CODE)).isEqualTo("BAD_INPUT");
        assertThat(failed.getAttributes().get(TaskTracing.RESULT)).isEqualTo("fatal");
        SpanData threw = tracing.spans().stream().filter(s -> s.getName().equals("work report")
                && s.getAttributes().get(TaskTracing.TASK_ID) == throwing).findFirst().orElseThrow();
        assertThat(threw.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(threw.getAttributes().get(TaskTracing.RESULT)).isEqualTo("exception");
        assertThat(threw.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
        assertThat(store.find(throwing).orElseThrow().state()).isEqualTo("FAILED");
    }

    @Test
    void aTaskCreatedOutsideAnySpanStartsATraceOfItsOwnAndAGivenContextWins() {
        long plain = engine.create(Reports.MACHINE).task().id();
        String given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        long carried = engine.create(Reports.MACHINE, TaskSpec.defaults().attribute("traceparent", given)).task().id();
        run(ctx -> WorkResult.success());
        SpanData plainWork = workOf(plain);
        SpanData plainCreate = tracing.spans().stream().filter(s -> s.getName().equals("create report")
                && s.getTraceId().equals(plainWork.getTraceId())).findFirst().orElseThrow();
        assertThat(plainCreate.getParentSpanContext().isValid()).isFalse();      // a root
        assertThat(plainWork.getParentSpanId()).isEqualTo(plainCreate.getSpanId());
        SpanData carriedWork = workOf(carried);
        assertThat(carriedWork.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(carriedWork.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    }

    @Test
    void childrenCreatedByAWorkerJoinItsTrace() {
        Machine<Reports.State, Reports.Event> machine = Reports.MACHINE;
        long parent = createInRequest("POST /batch");
        long[] child = new long[1];
        run(ctx -> {
            if (ctx.task().id() == parent) child[0] = engine.create(machine).task().id();
            return WorkResult.success();
        });
        SpanData request = tracing.span("POST /batch");
        SpanData childWork = workOf(child[0]);
        SpanData parentWork = workOf(parent);
        assertThat(childWork.getTraceId()).isEqualTo(request.getTraceId());
        SpanData childCreate = tracing.spans().stream().filter(s -> s.getSpanId().equals(childWork.getParentSpanId()))
                .findFirst().orElseThrow();
        assertThat(childCreate.getName()).isEqualTo("create report");
        assertThat(childCreate.getParentSpanId()).isEqualTo(parentWork.getSpanId());
    }

    SpanData workOf(long id) {
        return tracing.spans().stream().filter(s -> s.getName().equals("work report")
                && s.getAttributes().get(TaskTracing.TASK_ID) == id).findFirst()
                .orElseThrow(() -> new AssertionError("no work span of task " + id + " among " + tracing.spans()));
    }
}
