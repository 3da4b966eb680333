package dev.statekit.core;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of {@link TransitionEngine#fireAll}: either every command was applied (or
 * replayed) atomically, or one was refused and nothing was written.
 *
 * @param applied      the outcomes in the order of the commands; empty when refused
 * @param refusal      the first refusal, or null when applied
 * @param refusedIndex the index of the refused command, or -1 when applied
 */
public record BatchOutcome(List<Outcome.Applied<?>> applied, Outcome.@Nullable Refused<?> refusal, int refusedIndex) {
    /** Creates an outcome. */
    public BatchOutcome {
        applied = List.copyOf(applied);
        if ((refusal == null) != (refusedIndex < 0) || (refusal != null && !applied.isEmpty())) {
            throw new IllegalArgumentException("a batch is either applied or refused at one index");
        }
    }

    static BatchOutcome refused(Outcome.Refused<?> refusal, int index) {
        return new BatchOutcome(List.of(), Objects.requireNonNull(refusal), index);
    }

    /** Returns whether every command was applied. */
    public boolean isApplied() {
        return refusal == null;
    }
}
