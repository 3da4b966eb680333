package dev.statekit.core;

import dev.statekit.store.Attributes;
import dev.statekit.store.TaskRecord;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A task seen through its machine: the stored record with its state as the machine's enum.
 *
 * @param state  the current state
 * @param record the stored snapshot
 * @param <S>    the state type
 */
public record Task<S extends Enum<S>>(S state, TaskRecord record) {
    /** Creates a view. */
    public Task {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(record, "record");
    }

    /** Returns the task id. */
    public long id() {
        return record.id();
    }

    /** Returns the version: 0 when created, one more per applied change. */
    public long version() {
        return record.version();
    }

    /** Returns the attributes. */
    public Attributes attributes() {
        return record.attributes();
    }

    /** Returns attribute {@code key}, or null when absent. */
    public @Nullable String attribute(String key) {
        return record.attributes().get(key);
    }

    /**
     * Returns the value of typed attribute {@code key}, or null when absent.
     *
     * @throws IllegalStateException naming the task, the key and the text when the text is not a
     *                               value of the key's type
     */
    public <T> @Nullable T get(Attribute<T> key) {
        String text = record.attributes().get(key.name());
        if (text == null) return null;
        try {
            return key.decode(text);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("task " + record.id() + ": " + e.getMessage(), e.getCause());
        }
    }

    /** Returns the value of typed attribute {@code key}, or {@code fallback} when absent. */
    public <T> T get(Attribute<T> key, T fallback) {
        T value = get(key);
        return value != null ? value : java.util.Objects.requireNonNull(fallback, "fallback");
    }

    /** Returns the parent task id, or null. */
    public @Nullable Long parentId() {
        return record.parentId();
    }
}
