package dev.statekit.core;

/** Runs the properties of {@link TransitionProperties}. */
class TransitionPropertiesTest extends TransitionProperties {}
