package dev.statekit.store;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The tasks one task waits on, as the store keeps them: the owner's children or its
 * dependencies, with how many members are in each state.
 *
 * <p>Counts are kept by the group resolver ({@link Store#resolveGroups}) from the marks every
 * member's change writes in its own transaction, so they are exact as of the last resolution pass
 * and never touched by a member's own write (no hot owner row). The owner's machine decides what
 * the counts mean; the store only keeps them.
 *
 * @param ownerId    the task that owns the group
 * @param kind       children or dependencies
 * @param sealed     whether every member exists: a group is never resolved before it is sealed
 * @param total      how many members the group has (as of the last pass)
 * @param counts     how many members are in each state (as of the last pass); states with none are absent
 * @param resolution the event the resolver last fired on the owner for this group, or null while
 *                   the group is open (never resolved, or re-opened since)
 * @param hold       for {@link GroupKind#CHILDREN}, whether the owner holds its members (members are not
 *                   claimed); for {@link GroupKind#DEPENDENCIES}, whether the owner is held (it is not
 *                   claimed): set when the group is written, cleared by the resolver
 * @param awaiting   whether the resolver has work left on the group without a new mark (an event the
 *                   owner's state refused for now, or a cascade not finished)
 */
public record GroupRecord(
        long ownerId,
        GroupKind kind,
        boolean sealed,
        long total,
        Map<MemberState, Long> counts,
        @Nullable String resolution,
        boolean hold,
        boolean awaiting) {

    /** Creates a group record. */
    public GroupRecord {
        Objects.requireNonNull(kind, "kind");
        counts = Map.copyOf(counts);
        if (total < 0) throw new IllegalArgumentException("total must be >= 0, was " + total);
    }

    /** Returns how many members are in {@code state} of {@code machine}. */
    public long count(String machine, String state) {
        return counts.getOrDefault(new MemberState(machine, state), 0L);
    }

    /** Returns this record with other counts. */
    public GroupRecord withCounts(long newTotal, Map<MemberState, Long> newCounts) {
        return new GroupRecord(ownerId, kind, sealed, newTotal, newCounts, resolution, hold, awaiting);
    }

    /** Returns this record with another resolution and awaiting flag. */
    public GroupRecord resolved(@Nullable String newResolution, boolean stillAwaiting) {
        return new GroupRecord(ownerId, kind, sealed, total, counts, newResolution, hold, stillAwaiting);
    }
}
