package dev.statekit.jdbc;

import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * Skips the jqwik properties of a MariaDB test class when the server cannot be reached, outside
 * CI only (Jupiter tests skip through {@link Databases#requirePostgres()}). On CI nothing is
 * skipped, and the properties fail.
 */
public final class SkipWithoutMariaDb implements SkipExecutionHook {
    /** Creates the hook; jqwik calls this. */
    public SkipWithoutMariaDb() {
    }

    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
        String problem = Databases.mariaDbProblem();
        if (problem == null || Databases.onCi()) return SkipResult.doNotSkip();
        return SkipResult.skip(problem + " — skipping the MariaDB properties outside CI");
    }
}
