package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.jdbc.internal.DataSourceCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Building a store on an H2 data source that opens the database again for every operation logs
 * one WARN saying what to do; a pool, or a close delay, or another database, is left alone. Each
 * case that must not warn sits beside its twin that differs in that one respect and warns.
 */
class DataSourceCheckTest {
    private static final String WARNING = "WARN " + DataSourceCheck.class.getName() + " - ";

    /** Work that may throw. */
    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }

    /**
     * Returns the check's WARN lines that the tests' slf4j binding (slf4j-simple) printed while
     * {@code work} ran: to the log file the build gives it ({@code org.slf4j.simpleLogger.logFile}),
     * or else to the {@code System.err} of the moment.
     */
    static List<String> warningsWhile(Work work) throws Exception {
        assertThat(LoggerFactory.getILoggerFactory().getClass().getName()).as("the slf4j binding of the tests")
                .isEqualTo("org.slf4j.simple.SimpleLoggerFactory");
        assertThat(LoggerFactory.getLogger(DataSourceCheck.class).isWarnEnabled()).isTrue();
        String logFile = System.getProperty("org.slf4j.simpleLogger.logFile");
        if (logFile != null && !logFile.equals("System.err") && !logFile.equals("System.out")) {
            java.nio.file.Path log = java.nio.file.Paths.get(logFile);
            long before = java.nio.file.Files.exists(log) ? java.nio.file.Files.size(log) : 0;
            work.run();
            byte[] all = java.nio.file.Files.readAllBytes(log);
            String printed = new String(all, (int) before, all.length - (int) before, StandardCharsets.UTF_8);
            return printed.lines().filter(line -> line.contains(WARNING)).toList();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            work.run();
        } finally {
            System.setErr(original);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        original.print(printed);
        return printed.lines().filter(line -> line.contains(WARNING)).toList();
    }

    /** Returns the URL of a new H2 database file under the build directory. */
    static String newFileUrl(String prefix) {
        return prefix + Databases.buildDir().resolve("h2").resolve("check-" + Databases.uniquePrefix("c"));
    }

    /** Returns H2's own data source, without a pool; H2 is on the tests' runtime class path only. */
    static DataSource h2DataSource(String url) throws ReflectiveOperationException {
        Class<?> type = Class.forName("org.h2.jdbcx.JdbcDataSource");
        Object ds = type.getConstructor().newInstance();
        type.getMethod("setURL", String.class).invoke(ds, url);
        type.getMethod("setUser", String.class).invoke(ds, "sa");
        type.getMethod("setPassword", String.class).invoke(ds, "");
        return (DataSource) ds;
    }

    /** Returns a data source that asks {@link DriverManager} for a new connection each time, as simple data sources do. */
    static DataSource driverManager(String url) {
        return new PlainDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return DriverManager.getConnection(url, "sa", "");
            }
        };
    }

    static void build(DataSource ds, boolean detect) {
        JdbcStoreBuilder b = JdbcStore.builder(ds).tablePrefix(Databases.uniquePrefix("k"));
        JdbcStore store = (detect ? b.createSchemaIfMissing(true) : b.dialect(Dialect.H2)).build();
        assertThat(store.dialect()).isEqualTo(Dialect.H2);
    }

    static void shutdown(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("shutdown");
        }
    }

    @Test
    void h2sOwnDataSourceOnAFileIsWarnedAboutOnceWithWhatToDo() throws Exception {
        String url = newFileUrl("jdbc:h2:file:");
        DataSource ds = h2DataSource(url);
        List<String> warnings = warningsWhile(() -> {
            build(ds, true);
            build(ds, false);
            build(ds, true);
        });
        assertThat(warnings).hasSize(1);
        String warning = warnings.get(0);
        assertThat(warning).contains(url).contains("org.h2.jdbcx.JdbcDataSource")
                .contains("connection pool").contains(";DB_CLOSE_DELAY=-1");
        // docs/store-jdbc.md shows this very line, on the URL of its example
        String documented = Files.readAllLines(DocExamplesTest.ROOT.resolve("docs/store-jdbc.md")).stream()
                .filter(line -> line.startsWith(WARNING)).findFirst().orElseThrow();
        assertThat(warning.substring(warning.indexOf(WARNING)).replace(url, "<url>"))
                .isEqualTo(documented.replace("jdbc:h2:file:/var/lib/myapp/statekit", "<url>"));
    }

    @Test
    void aPoolOnTheSameFileIsNotWarnedAboutButADataSourceOverDriverManagerIs() throws Exception {
        String url = newFileUrl("jdbc:h2:");        // a plain path, without "file:"
        try (TestPool pool = new TestPool(url, credentials())) {
            assertThat(warningsWhile(() -> build(pool, true))).isEmpty();
            Object h2Pool = Class.forName("org.h2.jdbcx.JdbcConnectionPool").getMethod("create", String.class, String.class, String.class)
                    .invoke(null, url, "sa", "");
            try {
                assertThat(warningsWhile(() -> build((DataSource) h2Pool, false))).isEmpty();
            } finally {
                h2Pool.getClass().getMethod("dispose").invoke(h2Pool);
            }
        }
        List<String> unpooled = warningsWhile(() -> build(driverManager(url), false));
        assertThat(unpooled).hasSize(1);
        assertThat(unpooled.get(0)).contains(url).contains(";DB_CLOSE_DELAY=-1");
    }

    @Test
    void aCloseDelayInTheUrlOrKeptByTheDatabaseIsNotWarnedAboutButNoneIs() throws Exception {
        String neverClosed = newFileUrl("jdbc:h2:file:");
        String setOnce = newFileUrl("jdbc:h2:file:");
        String noDelay = newFileUrl("jdbc:h2:file:");
        try {
            assertThat(warningsWhile(() -> build(h2DataSource(neverClosed + ";DB_CLOSE_DELAY=-1"), true))).isEmpty();
            // H2 keeps the setting in the database: the URL no longer says it
            try (Connection c = DriverManager.getConnection(setOnce, "sa", ""); Statement s = c.createStatement()) {
                s.execute("set db_close_delay -1");
            }
            assertThat(warningsWhile(() -> build(h2DataSource(setOnce), true))).isEmpty();
            assertThat(warningsWhile(() -> build(h2DataSource(noDelay + ";DB_CLOSE_DELAY=0"), true))).hasSize(1);
        } finally {
            shutdown(neverClosed);
            shutdown(setOnce);
        }
    }

    @Test
    void anInMemoryDatabaseIsNotWarnedAboutButAFileIs() throws Exception {
        String name = Databases.uniquePrefix("m");
        assertThat(warningsWhile(() -> build(h2DataSource("jdbc:h2:mem:" + name), false))).isEmpty();
        assertThat(warningsWhile(() -> build(h2DataSource(newFileUrl("jdbc:h2:")), false))).hasSize(1);
    }

    @Test
    void aStoreOnPostgresqlBorrowsNoConnectionForTheCheckAndAFailingCheckFailsNoBuild() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        DataSource down = Failing.dataSource(() -> {
            asked.incrementAndGet();
            throw new SQLException("connection refused", "08001");
        });
        List<String> warnings = warningsWhile(() -> {
            JdbcStore.builder(down).dialect(Dialect.POSTGRESQL).build();
            assertThat(asked).hasValue(0);
            JdbcStore.builder(down).dialect(Dialect.H2).build();
            assertThat(asked).hasValue(1);
            // nothing was decided, so the next store checks again
            JdbcStore.builder(down).dialect(Dialect.H2).build();
            assertThat(asked).hasValue(2);
        });
        assertThat(warnings).isEmpty();
    }

    private static Properties credentials() {
        Properties p = new Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        return p;
    }
}
