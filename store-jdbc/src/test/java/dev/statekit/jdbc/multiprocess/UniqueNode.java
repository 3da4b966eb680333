package dev.statekit.jdbc.multiprocess;

import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Created;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One process of {@link UniqueAcrossProcessesTest}: an engine on a {@link JdbcStore} over the shared
 * PostgreSQL tables of a prefix, whose threads create tasks of the machine {@link #CONVERT} (unique in
 * {@code QUEUED} and {@code RUNNING}) with the unique keys {@link #key(int)} when the test says so.
 *
 * <p>Arguments are {@code key=value}: url, user, password, prefix, owner, app (the connections'
 * application name) and threads. Once connected it writes {@code READY} and reads commands from its
 * standard input, one a line: {@code create ROUND PHASE START GAP KEYS} has each of its threads
 * create a task of key {@code k} (for {@code k} from 0 below {@code KEYS}) at the instant
 * {@code START + k * GAP} (epoch milliseconds), or as soon as it can once that instant has passed,
 * so that the threads of both processes are released together for each key; the results go to the
 * test's table {@code creations} (round, phase, key, owner, thread, task id, whether it created the
 * task, how late after its instant the creation began) in one transaction, and then the line
 * {@code DONE ROUND PHASE} to the log. The process exits when its standard input closes.
 */
public final class UniqueNode {
    /** The states of a conversion. */
    enum State { QUEUED, RUNNING, DONE }

    /** The events of a conversion. */
    enum Event { START, COMPLETE }

    static final Machine<State, Event> CONVERT = Machine.builder("convert", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, USER)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, USER)
            .unique(State.QUEUED, State.RUNNING)
            .build();

    private record Result(int key, int thread, long taskId, boolean created, long lateMicros) {}

    private UniqueNode() {
    }

    /** The unique key number {@code k}. */
    static String key(int k) {
        return "in-" + k + ".txt -> out-" + k + ".gz";
    }

    /** Runs one node; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("expected key=value, was " + arg);
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String owner = a.get("owner");
        String prefix = a.get("prefix");
        int threads = Integer.parseInt(a.get("threads"));
        Properties properties = Pg.properties(a.get("user"), a.get("password"));
        properties.setProperty("ApplicationName", a.get("app"));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (TestPool connections = new TestPool(a.get("url"), properties, threads + 1)) {
            JdbcStore store = JdbcStore.builder(connections).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            engine.find(CONVERT, 1);        // warms the connections and the engine's first read
            out.println("READY " + owner);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] c = line.trim().split(" ");
                if (c.length != 6 || !c[0].equals("create")) throw new IllegalArgumentException("unknown command: " + line);
                int round = Integer.parseInt(c[1]);
                String phase = c[2];
                long start = Long.parseLong(c[3]);
                long gap = Long.parseLong(c[4]);
                int keys = Integer.parseInt(c[5]);
                List<Future<List<Result>>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        List<Result> results = new ArrayList<>();
                        for (int k = 0; k < keys; k++) {
                            long at = start + k * gap;
                            while (System.currentTimeMillis() < at) LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                            long late = ChronoUnit.MICROS.between(Instant.ofEpochMilli(at), Instant.now());
                            TaskSpec spec = TaskSpec.defaults().uniqueKey(key(k)).attribute("round", Integer.toString(round))
                                    .attribute("by", owner + "-" + thread);
                            Created<State> created = engine.create(CONVERT, spec);
                            results.add(new Result(k, thread, created.task().id(), created.created(), late));
                        }
                        return results;
                    }));
                }
                List<Result> all = new ArrayList<>();
                for (Future<List<Result>> f : futures) all.addAll(f.get(5, TimeUnit.MINUTES));
                try (Connection db = connections.getConnection()) {
                    db.setAutoCommit(false);
                    try (PreparedStatement ps = db.prepareStatement("insert into " + prefix + "creations"
                            + " (round, phase, unique_key, owner, thread, task_id, created, late_micros) values (?, ?, ?, ?, ?, ?, ?, ?)")) {
                        for (Result r : all) {
                            ps.setInt(1, round);
                            ps.setString(2, phase);
                            ps.setString(3, key(r.key()));
                            ps.setString(4, owner);
                            ps.setInt(5, r.thread());
                            ps.setLong(6, r.taskId());
                            ps.setBoolean(7, r.created());
                            ps.setLong(8, r.lateMicros());
                            ps.addBatch();
                        }
                        ps.executeBatch();
                    }
                    db.commit();
                }
                out.println("DONE " + round + " " + phase);
            }
        } finally {
            pool.shutdownNow();
        }
        System.exit(0);
    }
}
