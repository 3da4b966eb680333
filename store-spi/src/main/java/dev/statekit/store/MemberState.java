package dev.statekit.store;

import java.util.Objects;

/**
 * A state of a group's members, qualified by their machine (a group of dependencies may mix
 * machines whose state names collide).
 *
 * @param machine the members' machine
 * @param state   the state name
 */
public record MemberState(String machine, String state) {
    /** Creates a member state. */
    public MemberState {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(state, "state");
    }
}
