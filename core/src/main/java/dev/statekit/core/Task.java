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

    /** Returns the parent task id, or null. */
    public @Nullable Long parentId() {
        return record.parentId();
    }
}
