package dev.statekit.core;

import dev.statekit.store.TaskError;
import dev.statekit.store.TriggerSource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The context of one {@code fire}: who triggers it, why, with which idempotency key, which
 * attribute changes it carries, and optionally which version of the task it expects.
 *
 * <p>Immutable and thread-safe; every {@code with}-style method returns a new command.
 * Start from {@link #system()} or {@link #user(String)}.
 */
public final class Command {
    private static final Command SYSTEM = new Command(TriggerSource.SYSTEM, null, null, null, Map.of(), -1, -1, null);

    private final TriggerSource source;
    private final @Nullable String actor;
    private final @Nullable String reason;
    private final @Nullable String idempotencyKey;
    private final Map<String, @Nullable String> attributes;
    private final long expectedVersion;
    private final long leaseToken;
    private final @Nullable TaskError error;

    private Command(TriggerSource source, @Nullable String actor, @Nullable String reason,
                    @Nullable String idempotencyKey, Map<String, @Nullable String> attributes, long expectedVersion,
                    long leaseToken, @Nullable TaskError error) {
        this.leaseToken = leaseToken;
        this.error = error;
        this.source = source;
        this.actor = actor;
        this.reason = reason;
        this.idempotencyKey = idempotencyKey;
        this.attributes = attributes;
        this.expectedVersion = expectedVersion;
    }

    /** Returns a command triggered by the system, with no actor, reason, key or changes. */
    public static Command system() {
        return SYSTEM;
    }

    /**
     * Returns a command triggered by the user {@code actor}.
     *
     * @throws IllegalArgumentException if {@code actor} is blank
     */
    public static Command user(String actor) {
        return new Command(TriggerSource.USER, requireText(actor, "actor"), null, null, Map.of(), -1, -1, null);
    }

    /** Returns a command triggered by {@code source}, with no actor. */
    public static Command by(TriggerSource source) {
        Objects.requireNonNull(source, "source");
        return source == TriggerSource.SYSTEM ? SYSTEM : new Command(source, null, null, null, Map.of(), -1, -1, null);
    }

    private static String requireText(@Nullable String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isBlank()) throw new IllegalArgumentException(what + " must not be blank");
        return value;
    }

    /** Returns this command with {@code actorName} as its actor. */
    public Command actor(String actorName) {
        return new Command(source, requireText(actorName, "actor"), reason, idempotencyKey, attributes, expectedVersion, leaseToken, error);
    }

    /** Returns this command with a free-text reason, recorded in history. */
    public Command reason(String text) {
        return new Command(source, actor, Objects.requireNonNull(text, "reason"), idempotencyKey, attributes, expectedVersion, leaseToken, error);
    }

    /**
     * Returns this command with an idempotency key: repeating a command with the same key on the
     * same task returns the first outcome and applies nothing. Keys are recorded only for
     * applied commands, so a refused command may be repeated with its key.
     */
    public Command idempotencyKey(String key) {
        return new Command(source, actor, reason, requireText(key, "idempotency key"), attributes, expectedVersion, leaseToken, error);
    }

    /** Returns this command setting attribute {@code key} to {@code value}. */
    public Command set(String key, String value) {
        return withAttribute(requireText(key, "attribute key"), Objects.requireNonNull(value, "value"));
    }

    /** Returns this command setting typed attribute {@code key} to {@code value}. */
    public <T> Command set(Attribute<T> key, T value) {
        return set(key.name(), key.encode(value));
    }

    /** Returns this command removing typed attribute {@code key}. */
    public Command remove(Attribute<?> key) {
        return remove(key.name());
    }

    /** Returns this command removing attribute {@code key}. */
    public Command remove(String key) {
        return withAttribute(requireText(key, "attribute key"), null);
    }

    private Command withAttribute(String key, @Nullable String value) {
        LinkedHashMap<String, @Nullable String> copy = new LinkedHashMap<>(attributes);
        copy.put(key, value);
        return new Command(source, actor, reason, idempotencyKey, Collections.unmodifiableMap(copy), expectedVersion, leaseToken, error);
    }

    /**
     * Returns this command expecting the task at {@code version}: if it is elsewhere, the
     * command is refused with {@link RefusalCode#VERSION_CONFLICT}.
     *
     * @throws IllegalArgumentException if {@code version} is negative
     */
    public Command expectVersion(long version) {
        if (version < 0) throw new IllegalArgumentException("expected version must be >= 0, was " + version);
        return new Command(source, actor, reason, idempotencyKey, attributes, version, leaseToken, error);
    }

    /**
     * Returns this command issued under the lease with {@code fencingToken}: it is refused with
     * {@link RefusalCode#LEASE_LOST} when the task's lease was released, taken over or expired,
     * so a worker that lost its lease cannot commit.
     *
     * @throws IllegalArgumentException if {@code fencingToken} is negative
     */
    public Command underLease(long fencingToken) {
        if (fencingToken < 0) throw new IllegalArgumentException("fencing token must be >= 0, was " + fencingToken);
        return new Command(source, actor, reason, idempotencyKey, attributes, expectedVersion, fencingToken, error);
    }

    /**
     * Returns this command reporting a failure: guards and effects see it as {@link #error()},
     * and the engine records it as the task's last error when the command is applied.
     */
    public Command error(TaskError failure) {
        return new Command(source, actor, reason, idempotencyKey, attributes, expectedVersion, leaseToken,
                Objects.requireNonNull(failure, "failure"));
    }

    /** Returns the failure this command reports, or null. */
    public @Nullable TaskError error() {
        return error;
    }

    /** Returns the fencing token the command was issued under, if any. */
    public OptionalLong leaseToken() {
        return leaseToken < 0 ? OptionalLong.empty() : OptionalLong.of(leaseToken);
    }

    long leaseTokenOrMinusOne() {
        return leaseToken;
    }

    /** Returns who triggers the command. */
    public TriggerSource source() {
        return source;
    }

    /** Returns the actor, or null. */
    public @Nullable String actor() {
        return actor;
    }

    /** Returns the reason, or null. */
    public @Nullable String reason() {
        return reason;
    }

    /** Returns the idempotency key, or null. */
    public @Nullable String idempotencyKey() {
        return idempotencyKey;
    }

    /** Returns the attribute changes, in the order given; a null value removes its key. */
    public Map<String, @Nullable String> attributes() {
        return attributes;
    }

    /** Returns the expected version, if one was set. */
    public OptionalLong expectedVersion() {
        return expectedVersion < 0 ? OptionalLong.empty() : OptionalLong.of(expectedVersion);
    }

    long expectedVersionOrMinusOne() {
        return expectedVersion;
    }

    @Override
    public String toString() {
        return "Command[source=" + source + ", actor=" + actor + ", reason=" + reason + ", key=" + idempotencyKey
                + ", attributes=" + attributes + (expectedVersion < 0 ? "" : ", expectedVersion=" + expectedVersion)
                + (leaseToken < 0 ? "" : ", leaseToken=" + leaseToken) + (error == null ? "" : ", error=" + error) + "]";
    }
}
