package dev.statekit.jdbc.bench;

import dev.statekit.jdbc.TestPool;
import java.util.Properties;

/** Opens the benchmarks' connection pools: the tests' {@link TestPool}, with PostgreSQL backends named for the CPU readings. */
final class BenchPool {
    /** The application name of the benchmark's PostgreSQL connections. */
    static final String APPLICATION = "statekit-bench";

    private BenchPool() {}

    static TestPool open(String url, String user, String password) {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        // Names the PostgreSQL backends, so that the benchmark finds them to read their CPU time.
        if (url.startsWith("jdbc:postgresql:")) properties.setProperty("ApplicationName", APPLICATION);
        return new TestPool(url, properties);
    }
}
