package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.jdbc.internal.PgListener;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Wake-ups across processes: PostgreSQL's LISTEN/NOTIFY, MariaDB's wake-ups table, and nothing on H2. */
class WatchTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");
    static final NewTask NEW = new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, T0);

    /** Waits for one wake-up, at most 20 seconds; drains the ones that came with it. */
    static boolean woken(Semaphore wakes) throws InterruptedException {
        boolean woken = wakes.tryAcquire(20, TimeUnit.SECONDS);
        wakes.drainPermits();
        return woken;
    }

    /** Creates a task on {@code other}, moves it to another state, pauses and resumes its queue: each wakes the watcher. */
    static void creatingMovingAndResumingWake(JdbcStore other, Semaphore wakes) throws InterruptedException {
        TaskRecord t = other.create(NEW).task();
        assertThat(woken(wakes)).as("wake-up after a creation").isTrue();

        Instant at = T0.plusSeconds(1);
        TaskRecord next = t.toBuilder().state("WAITING").updatedAt(at).version(1).build();
        other.apply(new Change(0, next, new HistoryEntry(t.id(), 1, "READY", "WAITING", "WAIT", TriggerSource.SYSTEM,
                null, null, at, null)));
        assertThat(woken(wakes)).as("wake-up after a move to another state").isTrue();

        other.pauseQueue("q", null);
        other.resumeQueue("q");
        assertThat(woken(wakes)).as("wake-up after a resume").isTrue();
    }

    @Test
    void anotherProcessCreatingMovingOrResumingWakesTheWatcher() throws Exception {
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore other = db.twin();
            Semaphore wakes = new Semaphore(0);
            try (AutoCloseable watch = db.store().watch(wakes::release)) {
                assertThat(((PgListener) watch).awaitListening(20_000)).as("listening").isTrue();
                assertThat(woken(wakes)).as("wake-up once listening").isTrue();

                creatingMovingAndResumingWake(other, wakes);
            }
        }
    }

    @Test
    void aListenerWhoseConnectionDiesReconnectsAndWakesAgain() throws Exception {
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            Semaphore wakes = new Semaphore(0);
            try (AutoCloseable watch = db.store().watch(wakes::release)) {
                assertThat(((PgListener) watch).awaitListening(20_000)).isTrue();
                assertThat(woken(wakes)).isTrue();
                String channel = db.store().tablePrefix() + "wake";
                try (Connection c = db.pool().getConnection();
                     PreparedStatement ps = c.prepareStatement("select pg_terminate_backend(pid) from pg_stat_activity"
                             + " where query = ? and pid <> pg_backend_pid()")) {
                    ps.setString(1, "listen " + channel);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).as("the listening connection is found").isTrue();
                    }
                }
                assertThat(woken(wakes)).as("wake-up after reconnecting").isTrue();
                db.twin().create(NEW);
                assertThat(woken(wakes)).as("wake-up by a creation after reconnecting").isTrue();
            }
        }
    }

    @Test
    void theListenerWaitsForTheServerItselfAndGivesItsConnectionBackAsLent() throws Exception {
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection real = db.pool().getConnection()) {
            int lent = real.getNetworkTimeout();
            boolean[] closed = {false};
            Connection handed = (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            closed[0] = true;           // the test closes the real one once it has looked at it
                            return null;
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            javax.sql.DataSource source = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                    javax.sql.DataSource.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("getConnection")) return handed;
                        throw new UnsupportedOperationException(method.getName());
                    });
            String channel = db.store().tablePrefix() + "wake";
            Semaphore wakes = new Semaphore(0);
            PgListener listener = new PgListener(source, channel, wakes::release);
            try {
                assertThat(listener.awaitListening(20_000)).isTrue();
                assertThat(woken(wakes)).as("wake-up once listening").isTrue();
                assertThat(listener.waitsForMessagesItself()).as("waits for the server's messages itself").isTrue();
                for (int i = 0; i < 3; i++) {
                    db.twin().create(NEW);
                    assertThat(woken(wakes)).as("wake-up by creation " + i).isTrue();
                }
            } finally {
                listener.close();
            }
            assertThat(listener.awaitClosed(20_000)).as("the listener's thread ended").isTrue();
            assertThat(closed[0]).as("the connection was given back").isTrue();
            assertThat(real.getNetworkTimeout()).as("its network timeout, as lent").isEqualTo(lent);
            try (java.sql.Statement st = real.createStatement(); ResultSet rs = st.executeQuery("select pg_sleep(0.7), 1")) {
                assertThat(rs.next()).as("a query longer than the listener's wait, on the connection given back").isTrue();
            }
        }
    }

    @Test
    void onH2NothingListens() throws Exception {
        try (Opened db = Opened.open(Dialect.H2)) {
            Semaphore wakes = new Semaphore(0);
            long listeners = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("statekit-listen")).count();
            try (AutoCloseable watch = db.store().watch(wakes::release)) {
                assertThat(watch).isNotInstanceOf(PgListener.class);
                db.store().create(NEW);
                db.store().resumeQueue("q");
                assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("statekit-listen")).count())
                        .isEqualTo(listeners);
            }
            assertThat(wakes.availablePermits()).isZero();
        }
    }

    @Test
    void onMariaDbAnotherProcessCreatingMovingOrResumingWakesTheWatcherThroughTheTable() throws Exception {
        try (Opened db = Opened.open(Dialect.MARIADB)) {
            JdbcStore other = db.twin();
            Semaphore wakes = new Semaphore(0);
            try (AutoCloseable watch = db.store().watch(wakes::release)) {
                assertThat(watch).isNotInstanceOf(PgListener.class);
                assertThat(woken(wakes)).as("wake-up at the first read").isTrue();
                // nothing is written: a watcher that woke at every read would fail here
                assertThat(wakes.tryAcquire(500, TimeUnit.MILLISECONDS)).as("a wake-up without a write").isFalse();

                creatingMovingAndResumingWake(other, wakes);

                // a watcher keeps the table short
                for (int i = 0; i < 600; i++) other.resumeQueue("q");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                long rows;
                do {
                    try (java.sql.Connection c = db.pool().getConnection(); java.sql.Statement st = c.createStatement();
                         java.sql.ResultSet rs = st.executeQuery("select count(*) from " + db.store().tablePrefix() + "wakes")) {
                        rs.next();
                        rows = rs.getLong(1);
                    }
                    if (rows > 512) java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                } while (rows > 512 && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted());
                assertThat(rows).as("rows of the wake-ups table after 600 writes").isLessThanOrEqualTo(512);
            }
        }
    }
}
