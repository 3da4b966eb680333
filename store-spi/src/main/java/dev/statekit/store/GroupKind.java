package dev.statekit.store;

/** What makes a task a member of a group. */
public enum GroupKind {
    /** The members are the owner's children: the tasks whose {@code parentId} is the owner. */
    CHILDREN,
    /** The members are the tasks the owner was created depending on ({@link NewTask#dependsOn()}). */
    DEPENDENCIES
}
