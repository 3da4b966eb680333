package dev.statekit.examples.serve.readdo;

import java.util.concurrent.ThreadLocalRandom;

/** A failure rate of a simulated service: 0 never fails, 1 always fails, anything between as often. */
record Chance(double rate) {
    Chance {
        if (!(rate >= 0 && rate <= 1)) throw new IllegalArgumentException("a rate is between 0 and 1, not " + rate);
    }

    /** Returns whether this call fails. */
    boolean fails() {
        return rate > 0 && (rate >= 1 || ThreadLocalRandom.current().nextDouble() < rate);
    }

    /** Returns one of {@code choices} at random. */
    static <T> T pick(T[] choices) {
        return choices[ThreadLocalRandom.current().nextInt(choices.length)];
    }
}
