package dev.statekit.examples.serve;

import dev.statekit.core.spi.Clock;
import dev.statekit.store.Store;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a service is created with.
 *
 * @param store    the service's store, shared with every process serving the same system
 * @param clock    the clock
 * @param dataDir  the service's folder for its files (inputs, outputs), created
 * @param owner    this process's name as a lease owner, unique among the processes on the store
 * @param soleOwner whether this process alone uses the store (the embedded H2 file, which H2 locks to one
 *                 process): its runtime then recovers every lease it finds at start, whoever held it
 *                 ({@link dev.statekit.core.runtime.TaskRuntimeBuilder#soleOwner(boolean)})
 * @param options  the values of the service's own options given on the command line ({@link Service.Factory#options()})
 */
public record ServeContext(Store store, Clock clock, Path dataDir, String owner, boolean soleOwner, Options.Values options) {
    /** Returns the value of {@code option}, or its default. */
    public <T> T get(Options.Option<T> option) {
        return options.get(option);
    }

    /** Returns the value of {@code option}, if given. */
    public <T> Optional<T> find(Options.Option<T> option) {
        return options.find(option);
    }

    /** Returns the path {@code option} names, relative to the data folder, or its default under the data folder. */
    public Path path(Options.Option<String> option) {
        return dataDir.resolve(options.get(option));
    }
}
