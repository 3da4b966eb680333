package dev.statekit.jdbc.bench.pressure;

import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.concurrent.locks.LockSupport;

/**
 * The second process of the pressure benchmark's sigkill scenario: a runtime of no-op workers on
 * the same tables as the first process. Arguments: JDBC URL, user, password, table prefix,
 * workers, batch size, lease seconds. It prints {@code ready} with its owner name once it serves,
 * then {@code completed N} whenever its count of written results grows and {@code started MICROS}
 * (the pickup latency) for every task a worker starts; {@code exit} on its standard input stops it.
 */
public final class PressureNode {
    private PressureNode() {}

    /**
     * Runs the second process.
     *
     * @param args URL, user, password, prefix, workers, batch size, lease seconds
     * @throws Exception when the runtime cannot start or stop
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        TestPool pool = Pressure.pool(args[0], args[1], args[2], Pressure.APPLICATION);
        JdbcStore store = Pressure.store(pool, args[3], false);
        String owner = "pressure-node-" + ProcessHandle.current().pid();
        Object lock = new Object();
        LongConsumer latencies = micros -> {
            synchronized (lock) {
                out.println("started " + micros);
            }
        };
        Pressure.Served served = new Pressure.Served(store, owner, Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                Duration.ofSeconds(Long.parseLong(args[6])), latencies, 0);
        synchronized (lock) {
            out.println("ready " + owner);
            out.flush();
        }
        Thread reporter = new Thread(() -> {
            long last = -1;
            while (!Thread.currentThread().isInterrupted()) {
                long n = served.completed();
                synchronized (lock) {
                    if (n != last) out.println("completed " + n);
                    out.flush();
                }
                last = n;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }, "pressure-node-reporter");
        reporter.setDaemon(true);
        reporter.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals("exit")) {
            out.flush();      // any other line only flushes what was printed
        }
        served.close();
        reporter.interrupt();
        reporter.join();
        synchronized (lock) {
            out.println("completed " + served.completed());
            out.println("stopped " + Instant.now());
            out.flush();
        }
        pool.close();
    }
}
