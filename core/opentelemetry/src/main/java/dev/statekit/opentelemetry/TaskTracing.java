package dev.statekit.opentelemetry;

import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.TaskRecord;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Traces each task from its creation to each attempt's result, across processes, with
 * OpenTelemetry. Register it on the engine of every process that creates or runs tasks:
 *
 * <pre>{@code
 * TransitionEngine engine = TransitionEngine.builder().store(store)
 *         .interceptor(TaskTracing.of(openTelemetry))
 *         .build();
 * }</pre>
 *
 * <p>At a creation it starts and ends a span {@code "create <machine>"} of kind
 * {@link SpanKind#PRODUCER}, a child of the context current on the creating thread, and returns its
 * context, as the propagator of {@code openTelemetry} writes it ({@code traceparent} for W3C trace
 * context), to be written into the task's attributes with the task. Each attempt of the task then
 * runs inside a span {@code "work <machine>"} of kind {@link SpanKind#CONSUMER} whose parent is the
 * context read back from the task's attributes (so it needs no memory of the creation: another
 * process, or this one after a restart, continues the trace), made current on the worker's thread
 * for the attempt. Its attributes name the task, its queue, the attempt and the lease's owner; it
 * ends with the attempt's result: status OK for a success, ERROR with the failure's code and message
 * for a failure, an exception event when the worker threw, and the attribute
 * {@code statekit.result} ({@code success}, {@code retryable}, {@code fatal}, {@code snooze},
 * {@code rate_limited}, {@code exception}).
 *
 * <p>Tasks created where no span is current start a trace of their own. Attributes the task's own
 * description sets win over the ones written here: a task may carry a context it was given.
 * Thread-safe.
 */
public final class TaskTracing implements TaskInterceptor {
    /** The instrumentation scope's name. */
    public static final String SCOPE = "dev.statekit";
    /** The span attribute naming the task's id. */
    public static final AttributeKey<Long> TASK_ID = AttributeKey.longKey("statekit.task.id");
    /** The span attribute naming the task's machine. */
    public static final AttributeKey<String> MACHINE = AttributeKey.stringKey("statekit.machine");
    /** The span attribute naming the parent task of a creation, when it has one. */
    public static final AttributeKey<Long> PARENT_ID = AttributeKey.longKey("statekit.parent.id");
    /** The span attribute naming the attempt (counting from 1). */
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("statekit.attempt");
    /** The span attribute naming the owner of the lease the attempt ran under (the runtime's process). */
    public static final AttributeKey<String> OWNER = AttributeKey.stringKey("statekit.lease.owner");
    /** The span attribute naming the attempt's result. */
    public static final AttributeKey<String> RESULT = AttributeKey.stringKey("statekit.result");
    /** The span attribute naming a failure's error code. */
    public static final AttributeKey<String> ERROR_CODE = AttributeKey.stringKey("statekit.error.code");
    /** The messaging convention's system attribute, {@code statekit} on every span. */
    public static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    /** The messaging convention's destination attribute: the task's queue. */
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    /** The messaging convention's operation attribute: {@code create} or {@code process}. */
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");

    private static final TextMapGetter<Attributes> FROM_ATTRIBUTES = new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation")      // abstract still; propagators that list keys call it
        public Iterable<String> keys(Attributes carrier) {
            return carrier.asMap().keySet();
        }

        @Override
        public @Nullable String get(@Nullable Attributes carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private TaskTracing(Tracer tracer, TextMapPropagator propagator) {
        this.tracer = tracer;
        this.propagator = propagator;
    }

    /**
     * Returns tracing through {@code openTelemetry}: its tracer provider, and its propagators to
     * write a context into a task and read it back.
     */
    public static TaskTracing of(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        return new TaskTracing(openTelemetry.getTracer(SCOPE), openTelemetry.getPropagators().getTextMapPropagator());
    }

    @Override
    public Map<String, String> onCreate(String machine, @Nullable Long parentId) {
        Span span = tracer.spanBuilder("create " + machine)
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(Context.current())
                .setAttribute(MESSAGING_SYSTEM, "statekit")
                .setAttribute(OPERATION, "create")
                .setAttribute(MACHINE, machine)
                .startSpan();
        if (parentId != null) span.setAttribute(PARENT_ID, parentId);
        Map<String, String> carried = new HashMap<>();
        propagator.inject(Context.current().with(span), carried, (map, key, value) -> {
            if (map != null) map.put(key, value);
        });
        span.end();
        return carried;
    }

    @Override
    public WorkResult aroundWork(WorkContext<?> context, Work work) throws Exception {
        TaskRecord task = context.task().record();
        Context parent = propagator.extract(Context.root(), task.attributes(), FROM_ATTRIBUTES);
        Span span = tracer.spanBuilder("work " + task.machine())
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent)
                .setAttribute(MESSAGING_SYSTEM, "statekit")
                .setAttribute(OPERATION, "process")
                .setAttribute(MACHINE, task.machine())
                .setAttribute(DESTINATION, task.queue())
                .setAttribute(TASK_ID, task.id())
                .setAttribute(ATTEMPT, (long) task.attempts())
                .setAttribute(OWNER, context.lease().owner())
                .startSpan();
        Scope scope = span.makeCurrent();
        try {
            WorkResult result = work.run();
            record(span, result);
            return result;
        } catch (Exception | Error e) {
            span.setAttribute(RESULT, "exception");
            span.recordException(e);
            span.setStatus(StatusCode.ERROR, String.valueOf(e.getMessage()));
            throw e;
        } finally {
            scope.close();
            span.end();
        }
    }

    private static void record(Span span, @Nullable WorkResult result) {
        if (result instanceof WorkResult.Success) {
            span.setAttribute(RESULT, "success");
            span.setStatus(StatusCode.OK);
        } else if (result instanceof WorkResult.Failure f) {
            span.setAttribute(RESULT, f.retryable() ? "retryable" : "fatal");
            span.setAttribute(ERROR_CODE, f.code());
            span.setStatus(StatusCode.ERROR, f.code() + ": " + f.message());
        } else if (result instanceof WorkResult.Snooze s) {
            span.setAttribute(RESULT, s.rateLimited() ? "rate_limited" : "snooze");
        }
    }
}
