package dev.statekit.examples.observability;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.micrometer.StatekitMetrics;
import dev.statekit.opentelemetry.TaskTracing;
import dev.statekit.store.memory.InMemoryStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Runs three reports created inside a request's span on a runtime observed by
 * {@link StatekitMetrics} and {@link TaskTracing}, then prints the spans of the request's trace as a
 * tree and some of the meters; docs/observability.md shows it, and a test runs it.
 */
public final class ObservedReports {
    enum State { QUEUED, RUNNING, DONE, FAILED }

    enum Event { START, COMPLETE, FAIL }

    static final Machine<State, Event> REPORT = Machine.builder("report", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.FAILED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL))
            .build();

    private ObservedReports() {}

    /**
     * Runs the program.
     *
     * @param args none
     * @throws Exception if the runtime does not finish within a minute
     */
    public static void main(String[] args) throws Exception {
        run(new PrintStream(System.out, true, StandardCharsets.UTF_8));
    }

    /**
     * Runs the program, printing to {@code out}.
     *
     * @param out where the trace and the meters are printed
     * @throws Exception if the runtime does not finish within a minute
     */
    public static void run(PrintStream out) throws Exception {
        List<SpanData> spans = new CopyOnWriteArrayList<>();
        OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(collect(spans))).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        MeterRegistry registry = new SimpleMeterRegistry();

        // observability:begin
        TransitionEngine engine = TransitionEngine.builder()
                .store(new InMemoryStore())
                .interceptor(TaskTracing.of(openTelemetry))      // a task's trace context travels with the task
                .build();
        StatekitMetrics metrics = new StatekitMetrics();
        TaskRuntime runtime = TaskRuntime.builder(engine)
                .listener(metrics)                                // counts and times each attempt
                .register(REPORT, ctx -> WorkResult.success())
                .build();
        metrics.observe(runtime).bindTo(registry);               // gauges of what waits and runs
        // observability:end

        runtime.start();
        List<Long> ids = new ArrayList<>();
        Span request = openTelemetry.getTracer("app").spanBuilder("POST /reports").setSpanKind(SpanKind.SERVER).startSpan();
        Scope scope = request.makeCurrent();
        try {
            for (int i = 0; i < 3; i++) ids.add(engine.create(REPORT, TaskSpec.defaults().attribute("n", "" + i)).task().id());
        } finally {
            scope.close();
            request.end();
        }
        for (long id : ids) engine.awaitTerminal(REPORT, id, Duration.ofMinutes(1)).get(70, TimeUnit.SECONDS);
        runtime.stop(Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS);
        openTelemetry.close();
        metrics.refresh();

        printTree(out, spans, request.getSpanContext().getSpanId(), 0);
        out.println("statekit.task.attempts{outcome=succeeded} count="
                + registry.get("statekit.task.attempts").tag("outcome", "succeeded").timer().count());
        out.println("statekit.task.wait count=" + registry.get("statekit.task.wait").timer().count());
        out.println("statekit.tasks{state=DONE} value=" + (long) registry.get("statekit.tasks").tag("state", "DONE").gauge().value());
    }

    /** Prints the span {@code spanId} and its children, indented, in the order they started. */
    private static void printTree(PrintStream out, List<SpanData> spans, String spanId, int depth) {
        List<SpanData> children = new ArrayList<>();
        for (SpanData s : spans) {
            if (s.getSpanId().equals(spanId)) out.println("  ".repeat(depth) + s.getName() + " (" + s.getKind().name().toLowerCase(Locale.ROOT) + ")");
            if (s.getParentSpanId().equals(spanId)) children.add(s);
        }
        children.sort(Comparator.comparingLong(SpanData::getStartEpochNanos));
        for (SpanData c : children) printTree(out, spans, c.getSpanId(), depth + 1);
    }

    /** A span exporter that keeps the spans in {@code into}. */
    private static SpanExporter collect(List<SpanData> into) {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> batch) {
                into.addAll(batch);
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
    }
}
