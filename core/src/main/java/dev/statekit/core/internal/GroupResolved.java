package dev.statekit.core.internal;

import dev.statekit.store.Change;
import dev.statekit.store.GroupKind;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A group a resolution pass resolved: its owner as the pass read it, the group's kind, the
 * resolution written, the owner's change (null when the resolution moved no state), and when. Not API.
 *
 * @param owner      the owner as the pass read it
 * @param kind       children or dependencies
 * @param resolution the resolution the pass wrote
 * @param change     the owner's change, or null
 * @param at         the time of the pass
 */
public record GroupResolved(TaskRecord owner, GroupKind kind, String resolution, @Nullable Change change, Instant at) {}
