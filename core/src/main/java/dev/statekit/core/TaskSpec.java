package dev.statekit.core;

import dev.statekit.store.Attributes;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to create a task: queue, priority, parent, attributes, payload, idempotency key and
 * not-before time. Immutable; every method returns a new spec. Start from {@link #defaults()}.
 */
public final class TaskSpec {
    /** The priority of a task created without one. */
    public static final int NORMAL_PRIORITY = 0;

    private static final TaskSpec DEFAULTS = new TaskSpec(null, NORMAL_PRIORITY, null, Attributes.EMPTY, null, null, null);

    private final @Nullable String queue;
    private final int priority;
    private final @Nullable Long parentId;
    private final Attributes attributes;
    private final @Nullable String payload;
    private final @Nullable String idempotencyKey;
    private final @Nullable Instant notBefore;

    private TaskSpec(@Nullable String queue, int priority, @Nullable Long parentId, Attributes attributes,
                     @Nullable String payload, @Nullable String idempotencyKey, @Nullable Instant notBefore) {
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
        return new TaskSpec(name, priority, parentId, attributes, payload, idempotencyKey, notBefore);
    }

    /** Returns this spec with {@code value} as priority: larger runs first. */
    public TaskSpec priority(int value) {
        return new TaskSpec(queue, value, parentId, attributes, payload, idempotencyKey, notBefore);
    }

    /** Returns this spec with a named priority. */
    public TaskSpec priority(Priority value) {
        return priority(value.value());
    }

    /** Returns this spec as a child of task {@code parent}. */
    public TaskSpec parent(long parent) {
        if (parent <= 0) throw new IllegalArgumentException("parent id must be positive, was " + parent);
        return new TaskSpec(queue, priority, parent, attributes, payload, idempotencyKey, notBefore);
    }

    /** Returns this spec with these initial attributes. */
    public TaskSpec attributes(Map<String, String> values) {
        return new TaskSpec(queue, priority, parentId, Attributes.of(values), payload, idempotencyKey, notBefore);
    }

    /** Returns this spec with attribute {@code key} set to {@code value}. */
    public TaskSpec attribute(String key, String value) {
        return new TaskSpec(queue, priority, parentId, attributes.with(key, value), payload, idempotencyKey, notBefore);
    }

    /** Returns this spec with a payload (for example JSON), bounded by the store. */
    public TaskSpec payload(String value) {
        return new TaskSpec(queue, priority, parentId, attributes, Objects.requireNonNull(value, "payload"), idempotencyKey, notBefore);
    }

    /** Returns this spec with an idempotency key: creating again with it returns the first task. */
    public TaskSpec idempotencyKey(String key) {
        Objects.requireNonNull(key, "idempotency key");
        if (key.isBlank()) throw new IllegalArgumentException("idempotency key must not be blank");
        return new TaskSpec(queue, priority, parentId, attributes, payload, key, notBefore);
    }

    /** Returns this spec not runnable before {@code time}. */
    public TaskSpec notBefore(Instant time) {
        return new TaskSpec(queue, priority, parentId, attributes, payload, idempotencyKey, Objects.requireNonNull(time, "notBefore"));
    }

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

    /** Returns the not-before time, or null. */
    public @Nullable Instant notBefore() { return notBefore; }
}
