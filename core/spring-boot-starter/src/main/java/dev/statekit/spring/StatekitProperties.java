package dev.statekit.spring;

import dev.statekit.jdbc.Dialect;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Every option of the starter, bound from the properties under {@code statekit.*}. Each default is
 * the library's own default, except where said. Immutable.
 *
 * @param store   {@code statekit.store.*}: the JDBC store on the application's {@code DataSource}
 * @param engine  {@code statekit.engine.*}: the transition engine
 * @param runtime {@code statekit.runtime.*}: the runtime serving the worker beans
 * @param metrics   {@code statekit.metrics.*}: the Micrometer meters, when statekit-micrometer is present
 * @param dashboard {@code statekit.dashboard.*}: the dashboard, when statekit-dashboard is present in a servlet web application
 */
@ConfigurationProperties("statekit")
public record StatekitProperties(@DefaultValue Store store, @DefaultValue Engine engine, @DefaultValue Runtime runtime,
                                 @DefaultValue Metrics metrics, @DefaultValue Dashboard dashboard) {

    /**
     * The JDBC store ({@code dev.statekit.jdbc.JdbcStoreBuilder}).
     *
     * @param tablePrefix           the prefix of every table, sequence, index and channel name; default {@code statekit_}
     * @param dialect               the SQL dialect, {@code POSTGRESQL} or {@code H2}; default: detected from the database
     * @param maxPayloadChars       the largest payload accepted, in characters; default 1048576
     * @param createSchemaIfMissing whether the store creates its missing tables when the application starts; default
     *                              false (apply {@code JdbcStore.ddl} with the application's migration tool)
     * @param joinTransactions      whether creates and commands on a thread in a Spring-managed transaction on the
     *                              same {@code DataSource} join it; default true
     */
    public record Store(@DefaultValue("statekit_") String tablePrefix, @Nullable Dialect dialect,
                        @DefaultValue("1048576") int maxPayloadChars, @DefaultValue("false") boolean createSchemaIfMissing,
                        @DefaultValue("true") boolean joinTransactions) {}

    /**
     * The transition engine ({@code dev.statekit.core.TransitionEngineBuilder}).
     *
     * @param maxConflictRetries how often a command without an expected version is decided again after a conflict; default 100
     * @param awaitRecheck       how often the tasks awaited are read again while waits are pending; default 1 s
     */
    public record Engine(@DefaultValue("100") int maxConflictRetries, @DefaultValue("1s") Duration awaitRecheck) {}

    /**
     * The runtime ({@code dev.statekit.core.runtime.TaskRuntimeBuilder}), made when at least one
     * {@link WorkerRegistration} bean exists.
     *
     * @param enabled               whether this application runs workers at all; default true (false: it only creates tasks
     *                              and fires commands, and other processes run them)
     * @param owner                 the lease owner name; default: random (name it to have a restart recover its
     *                              predecessor's tasks at once)
     * @param workers               how many tasks run at once; default: the number of cores, at least 2
     * @param batchSize             how many tasks a worker slot claims at once, 1..1000; default: adaptive
     * @param leaseDuration         the lease of a running task; default 30 s
     * @param heartbeat             the lease renewal interval, shorter than the lease; default a third of the lease
     * @param pollInterval          how often the store is polled for work and expired leases; default 1 s
     * @param cancelGrace           how long a cooperative cancellation may take; default 30 s
     * @param forceCancelAfterGrace whether a task still running after the cancel grace is cancelled anyway; default true
     * @param soleOwner             whether this is the only process on the store (recovers every lease at start); default false
     * @param retentionBatch        how many finished trees one retention batch takes; default 500
     * @param retentionInterval     how often retention passes run; default 1 min
     * @param shutdownGrace         how long running work may finish when the context closes before it is asked to stop;
     *                              default 20 s (keep it below {@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s)
     */
    public record Runtime(@DefaultValue("true") boolean enabled, @Nullable String owner, @Nullable Integer workers,
                          @Nullable Integer batchSize, @DefaultValue("30s") Duration leaseDuration, @Nullable Duration heartbeat,
                          @DefaultValue("1s") Duration pollInterval, @DefaultValue("30s") Duration cancelGrace,
                          @DefaultValue("true") boolean forceCancelAfterGrace, @DefaultValue("false") boolean soleOwner,
                          @DefaultValue("500") int retentionBatch, @DefaultValue("1m") Duration retentionInterval,
                          @DefaultValue("20s") Duration shutdownGrace) {}

    /**
     * The Micrometer meters ({@code dev.statekit.micrometer.StatekitMetrics}).
     *
     * @param refresh how often, at most, the gauges read the store's counts; default 5 s
     */
    public record Metrics(@DefaultValue("5s") Duration refresh) {}

    /**
     * The dashboard ({@code dev.statekit.dashboard.Dashboard}), served by a {@code DashboardServlet}
     * under {@code path}, behind the application's own security.
     *
     * @param enabled        whether the dashboard is served; default true
     * @param path           the path it is served under: the page there, its API under {@code PATH/api}; default
     *                       {@code /statekit}
     * @param name           the name shown at the top of the page; default {@code statekit}
     * @param readOnly       whether no one may change anything; default true. False: every user the application's
     *                       security signed in may (an {@code Authorization} bean decides instead, whatever this says)
     * @param allowedOrigins the origins, besides the server's own host, whose pages may send changes (behind a proxy
     *                       that rewrites {@code Host}); default: none
     */
    public record Dashboard(@DefaultValue("true") boolean enabled, @DefaultValue("/statekit") String path,
                            @DefaultValue("statekit") String name, @DefaultValue("true") boolean readOnly,
                            @Nullable List<String> allowedOrigins) {}
}
