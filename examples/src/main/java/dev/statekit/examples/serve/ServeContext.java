package dev.statekit.examples.serve;

import dev.statekit.core.spi.Clock;
import dev.statekit.store.Store;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a service is created with.
 *
 * @param store    the service's store, shared with every process serving the same system
 * @param clock    the clock
 * @param dataDir  the service's folder for its files (inputs, outputs), created
 * @param owner    this process's name as a lease owner, unique among the processes on the store
 * @param options  the service's own options given on the command line (without their dashes)
 */
public record ServeContext(Store store, Clock clock, Path dataDir, String owner, Map<String, String> options) {
    /** Copies the options. */
    public ServeContext {
        options = Map.copyOf(options);
    }

    /** Returns the option {@code name}, if given. */
    public Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name));
    }

    /** Returns the option {@code name} as a number between 0 and 1, or {@code fallback}. */
    public double rate(String name, double fallback) {
        @Nullable String value = options.get(name);
        if (value == null) return fallback;
        try {
            double d = Double.parseDouble(value);
            if (d >= 0 && d <= 1) return d;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " must be a number from 0 to 1, not '" + value + "'");
    }

    /**
     * Returns the option {@code name} as a whole number from {@code min} to {@code max}, or
     * {@code fallback} when it is not given.
     *
     * @throws IllegalArgumentException saying what is wrong with the value
     */
    public long number(String name, long fallback, long min, long max) {
        @Nullable String value = options.get(name);
        if (value == null) return fallback;
        try {
            long n = Long.parseLong(value.trim());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " must be a whole number from " + min + " to " + max + ", not '" + value + "'");
    }

    /** Returns {@link #number} as an int, for options whose bounds fit one. */
    public int integer(String name, int fallback, int min, int max) {
        return (int) number(name, fallback, min, max);
    }

    /**
     * Returns the option {@code name} as {@code true} or {@code false}, or {@code fallback} when it
     * is not given.
     *
     * @throws IllegalArgumentException when it is neither
     */
    public boolean flag(String name, boolean fallback) {
        @Nullable String value = options.get(name);
        if (value == null) return fallback;
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("--" + name + " must be true or false, not '" + value + "'");
        };
    }

    /** Returns the option {@code name} as a path (relative to the data folder), or {@code fallback} under the data folder. */
    public Path path(String name, String fallback) {
        @Nullable String value = options.get(name);
        return value == null ? dataDir.resolve(fallback) : dataDir.resolve(value);
    }
}
