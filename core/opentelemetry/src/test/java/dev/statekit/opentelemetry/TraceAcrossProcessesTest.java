package dev.statekit.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.JdbcStore;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One task's trace across two processes on one PostgreSQL database: this JVM creates the task
 * inside a request's span, with the JDBC store and an OpenTelemetry SDK of its own; a second JVM
 * ({@link WorkerProcess}), which shares nothing with this one but the database, claims and runs it
 * with its own SDK and reports the spans it finished. The second process's work span belongs to the
 * request's trace, its parent is the creation's span of the first process, the worker's own span
 * nests under it, and its lease owner is the second process. Fails on CI, and skips elsewhere,
 * without PostgreSQL.
 */
class TraceAcrossProcessesTest {

    @Test
    void aTaskCreatedInOneProcessesRequestIsWorkedInTheSameTraceByAnother() throws Exception {
        Postgres.require();
        String prefix = Postgres.uniquePrefix();
        try (Tracing tracing = new Tracing()) {
            JdbcStore store = JdbcStore.builder(Postgres.dataSource()).tablePrefix(prefix).createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).interceptor(TaskTracing.of(tracing.sdk)).build();
            Span request = tracing.sdk.getTracer("app").spanBuilder("POST /reports").setSpanKind(SpanKind.SERVER).startSpan();
            long id;
            Scope scope = request.makeCurrent();
            try {
                id = engine.create(Reports.MACHINE).task().id();
            } finally {
                scope.close();
                request.end();
            }

            Path output = Files.createTempFile("statekit-worker", ".out");
            Process worker = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"),
                    "-Dstatekit.pg.url=" + Postgres.url(), "-Dstatekit.pg.user=" + Postgres.user(),
                    "-Dstatekit.pg.password=" + Postgres.password(),
                    WorkerProcess.class.getName(), prefix, Long.toString(id))
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            boolean ended = worker.waitFor(90, TimeUnit.SECONDS);
            if (!ended) worker.destroyForcibly();
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            Files.delete(output);
            assertThat(ended).as("the worker process ended; it printed:%n%s", printed).isTrue();
            assertThat(worker.exitValue()).as("the worker process's exit status; it printed:%n%s", printed).isZero();

            List<String[]> spans = new ArrayList<>();
            for (String line : printed.split("\n")) {
                if (line.startsWith("span|")) spans.add(line.split("\\|"));
            }
            String[] work = spans.stream().filter(s -> s[1].equals("work report")).findFirst()
                    .orElseThrow(() -> new AssertionError("no work span in:\n" + printed));
            String[] render = spans.stream().filter(s -> s[1].equals("render")).findFirst()
                    .orElseThrow(() -> new AssertionError("no render span in:\n" + printed));
            SpanData requestSpan = tracing.span("POST /reports");
            SpanData create = tracing.span("create report");
            assertThat(create.getParentSpanId()).isEqualTo(requestSpan.getSpanId());
            assertThat(work[2]).as("the work span's trace").isEqualTo(requestSpan.getTraceId());
            assertThat(work[4]).as("the work span's parent").isEqualTo(create.getSpanId());
            assertThat(work[5]).isEqualTo(Long.toString(id));
            assertThat(work[6]).isEqualTo("worker-process");
            assertThat(work[7]).isEqualTo("success");
            assertThat(render[2]).isEqualTo(requestSpan.getTraceId());
            assertThat(render[4]).isEqualTo(work[3]);
            assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
            assertThat(tracing.spans()).noneMatch(s -> s.getName().startsWith("work"));      // this process ran nothing
        } finally {
            Postgres.drop(prefix);
        }
    }

}
