package dev.statekit.core;

import dev.statekit.store.Attributes;
import java.time.Instant;
import java.util.Map;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to create a task: queue, priority, parent, attributes, payload, idempotency key, unique key
 * and not-before time. Immutable; every method returns a new spec. Start from {@link #defaults()}.
 */
public final class TaskSpec {
    /** The priority of a task created without one. */
    public static final int NORMAL_PRIORITY = 0;

    private static final TaskSpec DEFAULTS = new TaskSpec(null, NORMAL_PRIORITY, null, Attributes.EMPTY, null, null, null, List.of(), null);

    private final @Nullable String queue;
    private final int priority;
    private final @Nullable Long parentId;
    private final Attributes attributes;
    private final @Nullable String payload;
    private final @Nullable String idempotencyKey;
    private final @Nullable Instant notBefore;
    private final List<Long> dependsOn;
    private final @Nullable String uniqueKey;

    private TaskSpec(@Nullable String queue, int priority, @Nullable Long parentId, Attributes attributes,
                     @Nullable String payload, @Nullable String idempotencyKey, @Nullable Instant notBefore, List<Long> dependsOn,
                     @Nullable String uniqueKey) {
        this.dependsOn = dependsOn;
        this.uniqueKey = uniqueKey;
        this.queue = queue;
        this.priority = priority;
        this.parentId = parentId;
        this.attributes = attributes;
        this.payload = payload;
        this.idempotencyKey = idempotencyKey;
        this.notBefore = notBefore;
    }

    /** Returns the default spec: the machine's name as queue, normal priority, nothing else. */
    public static TaskSpec defaults() {
        return DEFAULTS;
    }

    /** Returns this spec on queue {@code name}. */
    public TaskSpec queue(String name) {
        Objects.requireNonNull(name, "queue");
        if (name.isBlank()) throw new IllegalArgumentException("queue must not be blank");
        return new TaskSpec(name, priority, parentId, attributes, payload, idempotencyKey, notBefore, dependsOn, uniqueKey);
    }

    /** Returns this spec with {@code value} as priority: larger runs first. */
    public TaskSpec priority(int value) {
        return new TaskSpec(queue, value, parentId, attributes, payload, idempotencyKey, notBefore, dependsOn, uniqueKey);
    }

    /** Returns this spec with a named priority. */
    public TaskSpec priority(Priority value) {
        return priority(value.value());
    }

    /** Returns this spec as a child of task {@code parent}. */
    public TaskSpec parent(long parent) {
        if (parent <= 0) throw new IllegalArgumentException("parent id must be positive, was " + parent);
        return new TaskSpec(queue, priority, parent, attributes, payload, idempotencyKey, notBefore, dependsOn, uniqueKey);
    }

    /** Returns this spec with these initial attributes. */
    public TaskSpec attributes(Map<String, String> values) {
        return new TaskSpec(queue, priority, parentId, Attributes.of(values), payload, idempotencyKey, notBefore, dependsOn, uniqueKey);
    }

    /** Returns this spec with typed attribute {@code key} set to {@code value}. */
    public <T> TaskSpec attribute(Attribute<T> key, T value) {
        return attribute(key.name(), key.encode(value));
    }

    /** Returns this spec with attribute {@code key} set to {@code value}. */
    public TaskSpec attribute(String key, String value) {
        return new TaskSpec(queue, priority, parentId, attributes.with(key, value), payload, idempotencyKey, notBefore, dependsOn, uniqueKey);
    }

    /** Returns this spec with a payload (for example JSON), bounded by the store. */
    public TaskSpec payload(String value) {
        return new TaskSpec(queue, priority, parentId, attributes, Objects.requireNonNull(value, "payload"), idempotencyKey, notBefore, dependsOn, uniqueKey);
    }

    /** Returns this spec with an idempotency key: creating again with it returns the first task. */
    public TaskSpec idempotencyKey(String key) {
        Objects.requireNonNull(key, "idempotency key");
        if (key.isBlank()) throw new IllegalArgumentException("idempotency key must not be blank");
        return new TaskSpec(queue, priority, parentId, attributes, payload, key, notBefore, dependsOn, uniqueKey);
    }

    /**
     * Returns this spec with a unique key: while a task of the machine created with the same key is
     * in one of the machine's {@link MachineBuilder#unique unique states}, creating returns that task
     * ({@link Created#created()} false) instead of a new one, in every process that shares the store.
     * With an idempotency key too, the idempotency key is looked at first (see
     * {@link dev.statekit.store.NewTask#uniqueKey()}). The machine must declare unique states.
     */
    public TaskSpec uniqueKey(String key) {
        Objects.requireNonNull(key, "unique key");
        if (key.isBlank()) throw new IllegalArgumentException("unique key must not be blank");
        return new TaskSpec(queue, priority, parentId, attributes, payload, idempotencyKey, notBefore, dependsOn, key);
    }

    /** Returns this spec not runnable before {@code time}. */
    public TaskSpec notBefore(Instant time) {
        return new TaskSpec(queue, priority, parentId, attributes, payload, idempotencyKey, Objects.requireNonNull(time, "notBefore"), dependsOn, uniqueKey);
    }

    /**
     * Returns this spec depending on the tasks {@code ids}: the task is created held, and runs only
     * once every one of them has succeeded; when one fails or is cancelled, the task gets its
     * machine's {@link Dependencies} event. The tasks must exist (a task can only depend on tasks
     * created before it, so dependencies never form a cycle).
     */
    public TaskSpec dependsOn(long... ids) {
        List<Long> list = new java.util.ArrayList<>(ids.length);
        for (long id : ids) {
            if (id <= 0) throw new IllegalArgumentException("a dependency must be a task id, was " + id);
            if (list.contains(id)) throw new IllegalArgumentException("dependency " + id + " is named twice");
            list.add(id);
        }
        return new TaskSpec(queue, priority, parentId, attributes, payload, idempotencyKey, notBefore, List.copyOf(list), uniqueKey);
    }

    /** Returns the tasks this task depends on; empty for none. */
    public List<Long> dependsOn() { return dependsOn; }

    /** Returns the queue, or null for the machine's default. */
    public @Nullable String queue() { return queue; }

    /** Returns the priority. */
    public int priority() { return priority; }

    /** Returns the parent id, or null. */
    public @Nullable Long parentId() { return parentId; }

    /** Returns the initial attributes. */
    public Attributes attributes() { return attributes; }

    /** Returns the payload, or null. */
    public @Nullable String payload() { return payload; }

    /** Returns the idempotency key, or null. */
    public @Nullable String idempotencyKey() { return idempotencyKey; }

    /** Returns the unique key, or null. */
    public @Nullable String uniqueKey() { return uniqueKey; }

    /** Returns the not-before time, or null. */
    public @Nullable Instant notBefore() { return notBefore; }
}
