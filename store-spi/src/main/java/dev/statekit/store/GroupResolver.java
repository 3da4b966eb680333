package dev.statekit.store;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decides, inside a store's resolution transaction, what a group's new counts mean for its owner
 * ({@link Store#resolveGroups}). Called with the owner's row locked; must not block, read a clock
 * or call the store other than through {@link View#members}.
 */
@FunctionalInterface
public interface GroupResolver {

    /**
     * Returns what to write for one group.
     *
     * @param view the owner, the group with its updated counts, and a reader of its members
     * @return the writes; {@link Resolution#keep} to write only the counts
     */
    Resolution resolve(View view);

    /** Reads a group's members inside the resolution transaction. */
    @FunctionalInterface
    interface Members {
        /**
         * Returns members of the group in {@code state} of {@code machine}, lease-holders
         * included, at most {@code max}, in id order after {@code afterId}.
         */
        List<TaskRecord> inState(String machine, String state, long afterId, int max);
    }

    /**
     * One group as the resolver sees it.
     *
     * @param owner   the owner as stored (locked by the pass)
     * @param group   the group with the counts of this pass applied, the resolution and flags as stored
     * @param members reads members inside the transaction
     */
    record View(TaskRecord owner, GroupRecord group, Members members) {
        /** Creates a view. */
        public View {
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(members, "members");
        }
    }

    /**
     * What one pass writes for one group, atomically with the consumption of its marks.
     *
     * @param changes    changes to the owner and to members (for example a cascade of cancellations);
     *                   at most one per task; applied with version checks, and a failed check undoes
     *                   the whole pass
     * @param creates    follow-on tasks to create (with idempotency keys, so a repeated pass creates none twice)
     * @param cancels    running members whose cancellation to request (the lease holder learns at its next renewal)
     * @param resolution the group's resolution after this pass (see {@link GroupRecord#resolution()})
     * @param hold       the group's new hold flag, or null to keep it
     * @param awaiting   whether the group needs another pass without a new mark
     */
    record Resolution(List<Change> changes, List<NewTask> creates, List<Long> cancels, @Nullable String resolution,
            @Nullable Boolean hold, boolean awaiting) {
        /** Creates a resolution. */
        public Resolution {
            changes = List.copyOf(changes);
            creates = List.copyOf(creates);
            cancels = List.copyOf(cancels);
        }

        /** Creates a resolution that keeps the group's hold flag. */
        public Resolution(List<Change> changes, List<NewTask> creates, List<Long> cancels, @Nullable String resolution, boolean awaiting) {
            this(changes, creates, cancels, resolution, null, awaiting);
        }

        /** Writes only the counts, keeping the group's resolution. */
        public static Resolution keep(GroupRecord group) {
            return new Resolution(List.of(), List.of(), List.of(), group.resolution(), null, false);
        }
    }
}
