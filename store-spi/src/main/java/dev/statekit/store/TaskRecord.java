package dev.statekit.store;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One persisted task as a store keeps it: an immutable snapshot at one {@code version}.
 *
 * <p>States are stored by name; the machine that owns the task gives them meaning. A new
 * snapshot is made with {@link #toBuilder()} or, on the engine's hot path, with
 * {@link #transitioned(String, Attributes, Instant)}.
 *
 * @param id             assigned by the store when the task is created; positive
 * @param machine        the name of the machine the task lives in
 * @param machineVersion the version of that machine when the task was created
 * @param state          the name of the current state
 * @param queue          the queue the task is scheduled on
 * @param priority       larger runs first; the runtime maps HIGH/NORMAL/LOW onto it
 * @param sequence       FIFO position within a priority, smaller runs first
 * @param parentId       the parent task (a job for its chunks), if any
 * @param attempts       how many times work on the task was started
 * @param retries        how many automatic retries happened
 * @param lease          the current lease, when a worker holds the task
 * @param notBefore      the task is not runnable before this time, if set
 * @param lastError      the last error, kept after a later success
 * @param attributes     application attributes
 * @param payload        an application payload (for example JSON), bounded by the store
 * @param idempotencyKey the key the task was created with, if any
 * @param createdAt      when the task was created
 * @param updatedAt      when the task was last changed
 * @param version        0 when created, raised by exactly one with every applied change
 * @param uniqueKey      the unique key the task holds while it is in one of its machine's unique
 *                       states ({@link NewTask#uniqueKey()}); null once it has left them, or when it
 *                       was created without one
 */
public record TaskRecord(
        long id,
        String machine,
        int machineVersion,
        String state,
        String queue,
        int priority,
        long sequence,
        @Nullable Long parentId,
        int attempts,
        int retries,
        @Nullable Lease lease,
        @Nullable Instant notBefore,
        @Nullable TaskError lastError,
        Attributes attributes,
        @Nullable String payload,
        @Nullable String idempotencyKey,
        Instant createdAt,
        Instant updatedAt,
        long version,
        @Nullable String uniqueKey) {

    /**
     * Creates a snapshot.
     *
     * @throws NullPointerException if a non-nullable component is null
     * @throws IllegalArgumentException if {@code id} is not positive or a count or the version is negative
     */
    public TaskRecord {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (id <= 0) throw new IllegalArgumentException("task id must be positive, was " + id);
        if (attempts < 0 || retries < 0) {
            throw new IllegalArgumentException("attempts and retries must be >= 0, were " + attempts + ", " + retries);
        }
        if (version < 0) throw new IllegalArgumentException("version must be >= 0, was " + version);
        if (uniqueKey != null && uniqueKey.isBlank()) throw new IllegalArgumentException("unique key must not be blank when given");
    }

    /** Creates a snapshot that holds no unique key. */
    public TaskRecord(long id, String machine, int machineVersion, String state, String queue, int priority, long sequence,
            @Nullable Long parentId, int attempts, int retries, @Nullable Lease lease, @Nullable Instant notBefore,
            @Nullable TaskError lastError, Attributes attributes, @Nullable String payload, @Nullable String idempotencyKey,
            Instant createdAt, Instant updatedAt, long version) {
        this(id, machine, machineVersion, state, queue, priority, sequence, parentId, attempts, retries, lease, notBefore,
                lastError, attributes, payload, idempotencyKey, createdAt, updatedAt, version, null);
    }

    /**
     * Returns the snapshot after one applied transition: the new state and attributes, the
     * version raised by one, {@code updatedAt} set to {@code at}.
     */
    public TaskRecord transitioned(String newState, Attributes newAttributes, Instant at) {
        return new TaskRecord(id, machine, machineVersion, newState, queue, priority, sequence, parentId,
                attempts, retries, lease, notBefore, lastError, newAttributes, payload, idempotencyKey,
                createdAt, at, version + 1, uniqueKey);
    }

    /** Returns a builder initialised with this snapshot. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A mutable builder of {@link TaskRecord}s; not thread-safe. */
    public static final class Builder {
        private long id;
        private String machine;
        private int machineVersion;
        private String state;
        private String queue;
        private int priority;
        private long sequence;
        private @Nullable Long parentId;
        private int attempts;
        private int retries;
        private @Nullable Lease lease;
        private @Nullable Instant notBefore;
        private @Nullable TaskError lastError;
        private Attributes attributes;
        private @Nullable String payload;
        private @Nullable String idempotencyKey;
        private Instant createdAt;
        private Instant updatedAt;
        private long version;
        private @Nullable String uniqueKey;

        private Builder(TaskRecord r) {
            id = r.id;
            machine = r.machine;
            machineVersion = r.machineVersion;
            state = r.state;
            queue = r.queue;
            priority = r.priority;
            sequence = r.sequence;
            parentId = r.parentId;
            attempts = r.attempts;
            retries = r.retries;
            lease = r.lease;
            notBefore = r.notBefore;
            lastError = r.lastError;
            attributes = r.attributes;
            payload = r.payload;
            idempotencyKey = r.idempotencyKey;
            createdAt = r.createdAt;
            updatedAt = r.updatedAt;
            version = r.version;
            uniqueKey = r.uniqueKey;
        }

        /** Sets the state name. */
        public Builder state(String value) { state = value; return this; }
        /** Sets the queue. */
        public Builder queue(String value) { queue = value; return this; }
        /** Sets the priority. */
        public Builder priority(int value) { priority = value; return this; }
        /** Sets the FIFO sequence. */
        public Builder sequence(long value) { sequence = value; return this; }
        /** Sets the attempt count. */
        public Builder attempts(int value) { attempts = value; return this; }
        /** Sets the retry count. */
        public Builder retries(int value) { retries = value; return this; }
        /** Sets or clears the lease. */
        public Builder lease(@Nullable Lease value) { lease = value; return this; }
        /** Sets or clears the not-before time. */
        public Builder notBefore(@Nullable Instant value) { notBefore = value; return this; }
        /** Sets or clears the last error. */
        public Builder lastError(@Nullable TaskError value) { lastError = value; return this; }
        /** Sets the attributes. */
        public Builder attributes(Attributes value) { attributes = value; return this; }
        /** Sets or clears the payload. */
        public Builder payload(@Nullable String value) { payload = value; return this; }
        /** Sets the update time. */
        public Builder updatedAt(Instant value) { updatedAt = value; return this; }
        /** Sets the version. */
        public Builder version(long value) { version = value; return this; }
        /** Sets or clears the unique key. */
        public Builder uniqueKey(@Nullable String value) { uniqueKey = value; return this; }

        /**
         * Builds the snapshot.
         *
         * @throws NullPointerException if a non-nullable component is null
         * @throws IllegalArgumentException if a component is out of range
         */
        public TaskRecord build() {
            return new TaskRecord(id, machine, machineVersion, state, queue, priority, sequence, parentId,
                    attempts, retries, lease, notBefore, lastError, attributes, payload, idempotencyKey,
                    createdAt, updatedAt, version, uniqueKey);
        }
    }
}
