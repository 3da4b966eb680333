package dev.statekit.jdbc;

import dev.statekit.jdbc.internal.ClaimHints;
import dev.statekit.jdbc.internal.DataSourceCheck;
import dev.statekit.jdbc.internal.Jdbc;
import dev.statekit.jdbc.internal.Schema;
import dev.statekit.jdbc.internal.SqlErrors;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A builder of {@link JdbcStore}s. Not thread-safe; {@link #build()} checks every setting
 * and reports every defect at once.
 */
public final class JdbcStoreBuilder {
    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    private final DataSource dataSource;
    private String tablePrefix = JdbcStore.DEFAULT_TABLE_PREFIX;
    private @Nullable Dialect dialect;
    private int maxPayloadChars = JdbcStore.DEFAULT_MAX_PAYLOAD_CHARS;
    private boolean createSchemaIfMissing;
    private @Nullable TransactionHooks transactions;
    private Duration claimsReadFromFirstEvery = ClaimHints.MIN_FULL_EVERY;

    JdbcStoreBuilder(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Sets the prefix of every table, sequence, index and notification channel name; default
     * {@value JdbcStore#DEFAULT_TABLE_PREFIX}. It must match {@code [a-z][a-z0-9_]{0,30}}
     * (checked by {@link #build()}), so that names need no quoting and leave room for suffixes.
     *
     * @param prefix the prefix, for example {@code jobs_}
     * @return this builder
     * @throws NullPointerException if {@code prefix} is null
     */
    public JdbcStoreBuilder tablePrefix(String prefix) {
        this.tablePrefix = Objects.requireNonNull(prefix, "prefix");
        return this;
    }

    /**
     * Sets the dialect, instead of detecting it from the database's product name when the store
     * is built.
     *
     * @param value the dialect
     * @return this builder
     * @throws NullPointerException if {@code value} is null
     */
    public JdbcStoreBuilder dialect(Dialect value) {
        this.dialect = Objects.requireNonNull(value, "dialect");
        return this;
    }

    /**
     * Sets the largest payload accepted, in characters; default {@value JdbcStore#DEFAULT_MAX_PAYLOAD_CHARS}.
     * Larger payloads are refused with {@link ErrorCode#PAYLOAD_TOO_LARGE}. Must not be negative
     * (checked by {@link #build()}).
     *
     * @param value the limit
     * @return this builder
     */
    public JdbcStoreBuilder maxPayloadChars(int value) {
        this.maxPayloadChars = value;
        return this;
    }

    /**
     * Sets whether {@link #build()} applies the schema (creating what is missing, leaving what
     * exists); default false, for hosts that apply the schema with their migration tool (the
     * files of {@link Dialect#schemaResource(int)}, or {@link JdbcStore#ddl}). Tables already at
     * {@link JdbcStore#SCHEMA_VERSION} are left alone: no statement of the schema runs, so a process
     * that starts beside others at work on the tables takes none of their locks.
     *
     * @param create whether to create missing tables, sequences and indexes
     * @return this builder
     */
    public JdbcStoreBuilder createSchemaIfMissing(boolean create) {
        this.createSchemaIfMissing = create;
        return this;
    }

    /**
     * Sets how the store joins the transactions the application's framework manages; default none
     * (every write is a transaction of its own). While {@link TransactionHooks#current()} names the
     * connection of the calling thread's transaction, every operation of the store runs on it within
     * a savepoint and commits nothing, and what the engine's listeners hear waits for the commit.
     *
     * @param hooks the framework's connection and after-commit hooks
     * @return this builder
     * @throws NullPointerException if {@code hooks} is null
     */
    public JdbcStoreBuilder transactions(TransactionHooks hooks) {
        this.transactions = Objects.requireNonNull(hooks, "hooks");
        return this;
    }

    /**
     * Sets the least time between two at-once claims of a queue that read it from its first entry
     * (see {@link ClaimHints}); the tests use it to make every other claim read on from the last one.
     */
    JdbcStoreBuilder claimsReadFromFirstEvery(Duration every) {
        this.claimsReadFromFirstEvery = Objects.requireNonNull(every, "every");
        return this;
    }

    /**
     * Builds the store. Connects once when the dialect must be detected or the schema created, and
     * then checks that the tables are at {@link JdbcStore#SCHEMA_VERSION}: every version recorded
     * in their {@code schema_version} table, none newer. With a dialect set and
     * {@code createSchemaIfMissing(false)} it does not connect, and checks nothing. Logs the dialect
     * at INFO. On H2, borrows one more connection, once per data source, to warn when the data
     * source opens the database again for every operation.
     *
     * @return the store
     * @throws IllegalArgumentException listing every invalid setting, or when the database is
     *                                  neither PostgreSQL nor H2
     * @throws StatekitException        {@link ErrorCode#STORE_UNAVAILABLE} or {@link ErrorCode#STORE_FAILURE}
     *                                  when connecting or creating the schema fails;
     *                                  {@link ErrorCode#STORE_FAILURE} when the tables are missing, at an
     *                                  older version or at a newer one, the message saying which and what to run
     */
    public JdbcStore build() {
        List<String> problems = new ArrayList<>();
        String prefixProblem = Schema.checkPrefix(tablePrefix);
        if (prefixProblem != null) problems.add(prefixProblem);
        if (maxPayloadChars < 0) problems.add("maxPayloadChars must be >= 0, was " + maxPayloadChars);
        if (!problems.isEmpty()) throw new IllegalArgumentException("invalid JdbcStore settings: " + String.join("; ", problems));
        Dialect chosen = dialect;
        if (chosen == null || createSchemaIfMissing) {
            String doing = chosen == null ? "detecting the database" : "creating the schema";
            Connection c = new Jdbc(dataSource).connect(doing, null);
            try {
                if (chosen == null) {
                    String product = c.getMetaData().getDatabaseProductName();
                    chosen = Dialect.of(product, c.getMetaData().getDatabaseProductVersion());
                    log.info("statekit store on tables {}*: dialect {} detected from database product '{}'",
                            tablePrefix, chosen, product);
                } else {
                    log.info("statekit store on tables {}*: dialect {} as configured", tablePrefix, chosen);
                }
                doing = "checking the schema version";
                String mismatch = Schema.mismatch(chosen, tablePrefix, Schema.recordedVersions(c, chosen, tablePrefix));
                // Tables already at this version are left alone: applying the schema again changes nothing
                // but takes locks that processes already working on the tables may deadlock with.
                if (createSchemaIfMissing && mismatch != null) {
                    doing = "creating the schema";
                    boolean autoCommit = c.getAutoCommit();
                    if (!autoCommit) c.setAutoCommit(true);
                    try {
                        Schema.apply(c, chosen, tablePrefix);
                    } finally {
                        if (!autoCommit) c.setAutoCommit(false);
                    }
                    log.info("statekit schema version {} applied on tables {}*", JdbcStore.SCHEMA_VERSION, tablePrefix);
                    doing = "checking the schema version";
                    mismatch = Schema.mismatch(chosen, tablePrefix, Schema.recordedVersions(c, chosen, tablePrefix));
                } else if (createSchemaIfMissing) {
                    log.info("statekit schema version {} found on tables {}*", JdbcStore.SCHEMA_VERSION, tablePrefix);
                }
                if (mismatch != null) throw new StatekitException(ErrorCode.STORE_FAILURE, mismatch);
            } catch (SQLException e) {
                throw SqlErrors.translate(e, doing, null);
            } finally {
                Jdbc.close(c);
            }
        } else {
            log.info("statekit store on tables {}*: dialect {} as configured", tablePrefix, chosen);
        }
        DataSourceCheck.warnIfReopening(dataSource, chosen);
        return new JdbcStore(dataSource, chosen, tablePrefix, maxPayloadChars, transactions, new ClaimHints(claimsReadFromFirstEvery));
    }
}
