package dev.statekit.store;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a write does to the {@link GroupKind#CHILDREN} group of one task, together with the changes
 * it applies ({@link Store#applyAll(List, List)}): opens the group if it does not exist, creates
 * children in it, seals it, holds or releases it.
 *
 * <p>A child whose machine and idempotency key match an existing task is not created again (the
 * existing task is kept, and counted once). Children created with the group that opens them are
 * counted in the same write; children added later are counted by the next resolution pass.
 *
 * @param parentId the group's owner
 * @param children the children to create; each must name {@code parentId} as its parent
 * @param seal     whether the write seals the group (every child now exists)
 * @param hold     true to hold the members, false to release them, null to leave the flag as it is
 */
public record GroupWrite(long parentId, List<NewTask> children, boolean seal, @Nullable Boolean hold) {

    /**
     * Creates a group write.
     *
     * @throws IllegalArgumentException if a child names another parent or has dependencies
     */
    public GroupWrite {
        children = List.copyOf(Objects.requireNonNull(children, "children"));
        for (NewTask c : children) {
            if (c.parentId() == null || c.parentId() != parentId) {
                throw new IllegalArgumentException("child of " + parentId + " names parent " + c.parentId());
            }
            if (!c.dependsOn().isEmpty()) throw new IllegalArgumentException("a child created in a group write cannot have dependencies");
        }
    }

    /** Opens the group of {@code parentId} with {@code children} and seals it: every child exists. */
    public static GroupWrite sealed(long parentId, List<NewTask> children) {
        return new GroupWrite(parentId, children, true, null);
    }

    /** Opens the group of {@code parentId} (if needed) and adds {@code children}, leaving it unsealed. */
    public static GroupWrite open(long parentId, List<NewTask> children) {
        return new GroupWrite(parentId, children, false, null);
    }

    /** Sets whether the group of {@code parentId} holds its members. */
    public static GroupWrite hold(long parentId, boolean hold) {
        return new GroupWrite(parentId, List.of(), false, hold);
    }
}
