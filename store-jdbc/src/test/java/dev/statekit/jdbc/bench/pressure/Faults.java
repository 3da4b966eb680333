package dev.statekit.jdbc.bench.pressure;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/** The pressures the scenarios put on the database, each held from its start until closed. */
final class Faults {
    private Faults() {}

    /** Where the faults connect: the database of the benchmark, as its own user. */
    record Target(String url, String user, String password) {
        Connection connect(String application) throws SQLException {
            return DriverManager.getConnection(url, Pressure.properties(user, password, application));
        }
    }

    /** A pressure that lasts until it is closed; {@link #describe()} tells what it did. */
    interface Fault extends AutoCloseable {
        String describe();

        /** Ends the pressure. */
        @Override
        void close() throws SQLException;
    }

    /** A transaction that took a transaction id (so it holds back the xmin horizon) and stays open until closed, then commits. */
    static Fault xmin(Target target) throws SQLException {
        Connection c = target.connect(Pressure.SIDE_APPLICATION + "-xmin");
        c.setAutoCommit(false);
        long xid;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select txid_current()")) {
            rs.next();
            xid = rs.getLong(1);
        }
        long started = System.nanoTime();
        return new Fault() {
            @Override
            public String describe() {
                return String.format(java.util.Locale.ROOT, "a transaction (txid %d) held open %.0f s", xid, (System.nanoTime() - started) / 1e9);
            }

            @Override
            public void close() throws SQLException {
                try {
                    c.commit();
                } finally {
                    c.close();
                }
            }
        };
    }

    /**
     * {@code readers} connections in REPEATABLE READ, each scanning {@code tables} with
     * {@code select count(*)} in a loop inside a transaction that keeps its snapshot for
     * {@code snapshotSeconds}, then starts the next one.
     */
    static Fault readers(Target target, int readers, List<String> tables, double snapshotSeconds) {
        AtomicLong scans = new AtomicLong();
        AtomicLong snapshots = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        boolean[] stop = {false};
        for (int i = 0; i < readers; i++) {
            Thread t = new Thread(() -> {
                while (!stopped(stop)) {
                    try (Connection c = target.connect(Pressure.SIDE_APPLICATION + "-reader")) {
                        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                        c.setAutoCommit(false);
                        while (!stopped(stop)) {
                            long until = System.nanoTime() + (long) (snapshotSeconds * 1e9);
                            snapshots.incrementAndGet();
                            try (Statement s = c.createStatement()) {
                                while (!stopped(stop) && System.nanoTime() < until) {
                                    for (String table : tables) {
                                        try (ResultSet rs = s.executeQuery("select count(*) from " + table)) {
                                            rs.next();
                                        }
                                        scans.incrementAndGet();
                                    }
                                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                                }
                            }
                            c.commit();
                        }
                    } catch (SQLException e) {
                        errors.incrementAndGet();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
                    }
                }
            }, "pressure-reader-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return new Fault() {
            @Override
            public String describe() {
                return readers + " REPEATABLE READ readers: " + snapshots.get() + " snapshots of up to " + snapshotSeconds + " s, "
                        + scans.get() + " scans of " + tables + (errors.get() > 0 ? ", " + errors.get() + " errors" : "");
            }

            @Override
            public void close() {
                synchronized (stop) {
                    stop[0] = true;
                }
                for (Thread t : threads) join(t);
            }
        };
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.MINUTES.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean stopped(boolean[] stop) {
        synchronized (stop) {
            return stop[0];
        }
    }

    /**
     * A side connection that terminates every backend named {@code application} (but its own)
     * {@code perSecond} times a second.
     */
    static Fault terminator(Target target, String application, double perSecond, PrintStream log) {
        AtomicLong rounds = new AtomicLong();
        AtomicLong terminated = new AtomicLong();
        boolean[] stop = {false};
        Thread t = new Thread(() -> {
            long period = (long) (1e9 / perSecond);
            long next = System.nanoTime();
            Connection c = null;
            while (!stopped(stop)) {
                next += period;
                try {
                    if (c == null) c = target.connect(Pressure.SIDE_APPLICATION + "-terminator");
                    try (java.sql.PreparedStatement s = c.prepareStatement("select count(*) filter (where pg_terminate_backend(pid))"
                            + " from pg_stat_activity where application_name = ? and pid <> pg_backend_pid()")) {
                        s.setString(1, application);
                        try (ResultSet rs = s.executeQuery()) {
                            rs.next();
                            terminated.addAndGet(rs.getLong(1));
                        }
                    }
                    rounds.incrementAndGet();
                } catch (SQLException e) {
                    log.println("  (terminator: " + e.getMessage() + ")");
                    try {
                        if (c != null) c.close();
                    } catch (SQLException ignored) {
                        // already broken
                    }
                    c = null;
                }
                long wait = next - System.nanoTime();
                if (wait > 0) LockSupport.parkNanos(wait);
            }
            try {
                if (c != null) c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }, "pressure-terminator");
        t.setDaemon(true);
        t.start();
        return new Fault() {
            @Override
            public String describe() {
                return rounds.get() + " rounds of pg_terminate_backend ended " + terminated.get() + " backends named " + application;
            }

            @Override
            public void close() {
                synchronized (stop) {
                    stop[0] = true;
                }
                join(t);
            }
        };
    }

    /**
     * {@code wanted} idle connections, fewer when max_connections leaves less than that plus 30
     * free (the log says so).
     */
    static Fault idleConnections(Target target, int wanted, PrintStream log) throws SQLException {
        int room;
        try (Connection c = target.connect(Pressure.SIDE_APPLICATION); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select current_setting('max_connections')::int"
                     + " - current_setting('superuser_reserved_connections')::int - (select count(*) from pg_stat_activity)")) {
            rs.next();
            room = rs.getInt(1);
        }
        int n = Math.max(0, Math.min(wanted, room - 30));
        if (n < wanted) {
            log.printf(java.util.Locale.ROOT, "  (max_connections leaves room for %d more connections: opening %d idle ones, not %d)%n",
                    room, n, wanted);
        }
        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < n; i++) held.add(target.connect(Pressure.SIDE_APPLICATION + "-idle"));
        return new Fault() {
            @Override
            public String describe() {
                return held.size() + " idle connections held" + (n < wanted ? " (max_connections too low for " + wanted + ")" : "");
            }

            @Override
            public void close() throws SQLException {
                for (Connection c : held) c.close();
            }
        };
    }

    /** What a restart of the server took. */
    record Restart(double commandSeconds, double outageSeconds, int exitCode, String output) {}

    /**
     * Runs {@code command} (split at spaces) to restart the server, then connects every 100 ms
     * until a connection succeeds; the outage is from the command's start to that connection.
     */
    static Restart restart(Target target, String command) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(Arrays.asList(command.trim().split("\\s+"))).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(5, TimeUnit.MINUTES)) p.destroyForcibly();
        double commandSeconds = (System.nanoTime() - t0) / 1e9;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline) {
            try (Connection c = target.connect(Pressure.SIDE_APPLICATION); Statement s = c.createStatement()) {
                s.execute("select 1");
                break;
            } catch (SQLException e) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        return new Restart(commandSeconds, (System.nanoTime() - t0) / 1e9, p.exitValue(),
                new String(output, StandardCharsets.UTF_8).trim());
    }
}
