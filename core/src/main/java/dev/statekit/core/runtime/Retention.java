package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How long a machine's finished tasks stay in the store's hot table, and what then happens to
 * them: deleted ({@link #delete}) or moved with their history to the archive ({@link #archive}),
 * where they stay readable by id ({@link TransitionEngine#findArchived}) for ever, or until
 * {@link #thenDelete} says. A {@link TaskRuntime} applies it ({@link TaskRuntimeBuilder#retain}).
 *
 * <p>A task is <em>finished</em> in a terminal state of its machine ({@link Machine#terminals()}),
 * and its age is counted from its last change. A task with a parent never leaves on its own: it
 * goes with its root (the task at the top of its parents), under the root's machine's retention,
 * once the root and every descendant are finished and hold no lease. See
 * {@link dev.statekit.store.Store#archive} for every rule.
 *
 * <p>Immutable and thread-safe.
 */
public final class Retention {
    private final Duration after;
    private final boolean archive;
    private final @Nullable Duration archivedFor;

    private Retention(Duration after, boolean archive, @Nullable Duration archivedFor) {
        this.after = after;
        this.archive = archive;
        this.archivedFor = archivedFor;
    }

    /**
     * Returns a retention that deletes finished tasks, with their history, once they have been
     * finished for {@code after} (0: at the next pass).
     *
     * @throws NullPointerException     if {@code after} is null
     * @throws IllegalArgumentException if {@code after} is negative
     */
    public static Retention delete(Duration after) {
        return new Retention(checked(after, "after"), false, null);
    }

    /**
     * Returns a retention that moves finished tasks, with their history, to the archive once they
     * have been finished for {@code after} (0: at the next pass); they stay there until
     * {@link #thenDelete} says otherwise.
     *
     * @throws NullPointerException     if {@code after} is null
     * @throws IllegalArgumentException if {@code after} is negative
     */
    public static Retention archive(Duration after) {
        return new Retention(checked(after, "after"), true, null);
    }

    /**
     * Returns this archiving retention with archived tasks deleted once they have been in the
     * archive for {@code archivedFor}.
     *
     * @throws NullPointerException     if {@code archivedFor} is null
     * @throws IllegalArgumentException if {@code archivedFor} is negative
     * @throws IllegalStateException    if this retention deletes tasks instead of archiving them
     */
    public Retention thenDelete(Duration archivedFor) {
        checked(archivedFor, "archivedFor");
        if (!archive) throw new IllegalStateException("a retention that deletes finished tasks has no archive to delete from");
        return new Retention(after, true, archivedFor);
    }

    private static Duration checked(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) throw new IllegalArgumentException(name + " must not be negative, was " + d);
        return d;
    }

    /** Returns how long a finished task stays in the hot table. */
    public Duration after() {
        return after;
    }

    /** Returns whether finished tasks move to the archive (true) or are deleted (false). */
    public boolean archives() {
        return archive;
    }

    /** Returns how long archived tasks stay in the archive; empty: for ever (or this retention does not archive). */
    public Optional<Duration> archivedFor() {
        return Optional.ofNullable(archivedFor);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Retention r && after.equals(r.after) && archive == r.archive && Objects.equals(archivedFor, r.archivedFor);
    }

    @Override
    public int hashCode() {
        return Objects.hash(after, archive, archivedFor);
    }

    @Override
    public String toString() {
        if (!archive) return "delete after " + after;
        return "archive after " + after + (archivedFor == null ? "" : ", then delete after " + archivedFor);
    }
}
