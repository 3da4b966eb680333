package dev.statekit.opentelemetry;

import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.JdbcStore;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The second process of {@link TraceAcrossProcessesTest}: serves the report machine on the
 * PostgreSQL tables of the prefix given as its argument, with an OpenTelemetry SDK of its own,
 * until task {@code args[1]} has ended (at most 60 s), then prints each span it finished as one
 * line {@code span|name|trace id|span id|parent span id|task id|lease owner|result} and exits.
 */
public final class WorkerProcess {
    private WorkerProcess() {}

    /**
     * Runs the worker process.
     *
     * @param args the table prefix and the id of the task to wait for
     * @throws Exception when the store cannot be reached
     */
    public static void main(String[] args) throws Exception {
        String prefix = args[0];
        long taskId = Long.parseLong(args[1]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (Tracing tracing = new Tracing()) {
            JdbcStore store = JdbcStore.builder(Postgres.dataSource()).tablePrefix(prefix).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).interceptor(TaskTracing.of(tracing.sdk)).build();
            TaskRuntime runtime = TaskRuntime.builder(engine).owner("worker-process").workers(1)
                    .register(Reports.MACHINE, ctx -> {
                        tracing.sdk.getTracer("app").spanBuilder("render").startSpan().end();
                        return WorkResult.success();
                    }).build();
            runtime.start();
            engine.awaitTerminal(Reports.MACHINE, taskId, Duration.ofSeconds(60)).get(70, TimeUnit.SECONDS);
            runtime.stop(Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS);
            for (SpanData s : tracing.spans()) {
                out.println(String.join("|", "span", s.getName(), s.getTraceId(), s.getSpanId(), s.getParentSpanId(),
                        String.valueOf(s.getAttributes().get(TaskTracing.TASK_ID)),
                        String.valueOf(s.getAttributes().get(TaskTracing.OWNER)),
                        String.valueOf(s.getAttributes().get(TaskTracing.RESULT))));
            }
        }
    }
}
