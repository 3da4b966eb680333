package dev.statekit.core;

/** Run policies for tests of the runtime's parts, built without a machine to validate them against. */
public final class TestPolicies {
    private TestPolicies() {}

    /** Returns a run policy builder over {@code stateType}. */
    public static <S extends Enum<S>, E extends Enum<E>> RunPolicy.Builder<S, E> builder(Class<S> stateType) {
        return new RunPolicy.Builder<>(stateType);
    }

    /** Builds {@code builder}'s policy as a machine would, without checking it against the machine's table. */
    public static <S extends Enum<S>, E extends Enum<E>> RunPolicy<S, E> build(RunPolicy.Builder<S, E> builder) {
        return builder.build();
    }
}
