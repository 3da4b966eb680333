package dev.statekit.core;

import dev.statekit.store.Change;

/**
 * What one command means for one task, as {@link Decider} decides it: a change to write, a
 * refusal, or a replay of an earlier application of the command's idempotency key.
 *
 * @param <S> the state type
 */
sealed interface Decision<S extends Enum<S>> {

    /** The command applies: write {@code change} (compare-and-set on its expected version). */
    record Write<S extends Enum<S>>(Change change) implements Decision<S> {}

    /** The command is refused; nothing is written. */
    record Refuse<S extends Enum<S>>(Outcome.Refused<S> refused) implements Decision<S> {}

    /** The command's idempotency key was applied before: answer with the first outcome, write nothing. */
    record Replay<S extends Enum<S>>(Outcome.Applied<S> applied) implements Decision<S> {}
}
