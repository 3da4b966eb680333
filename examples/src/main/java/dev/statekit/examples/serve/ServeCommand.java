package dev.statekit.examples.serve;

import dev.statekit.core.spi.Clock;
import dev.statekit.examples.StartFailure;
import dev.statekit.examples.Stores;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code examples serve SYSTEM [OPTIONS]}: runs a seed system as a service until the process is
 * stopped. SIGTERM (or Ctrl-C) stops it gracefully: the server stops accepting requests, the
 * runtime finishes or hands back its work, the store closes.
 *
 * <pre>
 * --port N                  the HTTP port (default 8080; 0 picks a free one)
 * --host H                  the address to listen on (default 127.0.0.1)
 * --data DIR                the service's folder: its H2 database and its files (default ~/.statekit/SYSTEM)
 * --jdbc-url URL [--user U] [--password P]
 *                           the database at URL (PostgreSQL, MariaDB or H2) instead of the H2 database in DIR
 * --table-prefix P          the prefix of the store's tables (default: the system's name, e.g. novel_proofer_)
 * --in-memory               an in-memory store: nothing survives the process
 * --read-only-dashboard     the dashboard shows but changes nothing
 * </pre>
 *
 * ({@link #COMMON}) plus each system's own options ({@link Service.Factory#options()}). Every process serving one
 * system on one database shares its tasks and its work.
 */
public final class ServeCommand {
    /** The line the command prints once it serves; {@code %s} is the base address. */
    public static final String LISTENING = "listening on %s (dashboard: %s/ui)";
    /** The store's connections: the runtime's and at most {@link HttpServer.Limits#activeRequests} requests at once. */
    static final int POOL_SIZE = 16;

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    private ServeCommand() {}

    static final Options.Option<Integer> PORT = Options.integer("port", 8080, 0, 65535, "the HTTP port; 0 picks a free one");
    static final Options.Option<String> HOST = Options.text("host", "H", "127.0.0.1", "the address to listen on");
    static final Options.Option<String> DATA = Options.text("data", "DIR", null, "~/.statekit/SYSTEM",
            "the service's folder: its H2 database and its files");
    static final Options.Option<String> TABLE_PREFIX = Options.text("table-prefix", "P", null, "the system's name, e.g. novel_proofer_",
            "the prefix of the store's tables").requiring(v -> v.matches("[a-z][a-z0-9_]{0,29}"),
            "a lower-case letter and up to 29 letters, digits or _");
    static final Options.Option<String> NODE = Options.text("node", "NAME", null,
            "a name unique to each start",
            "this process's name, which its leases carry: restarted with the same name it takes its tasks back at once")
            .requiring(v -> v.matches("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}"), "1 to 100 letters, digits, '.', '_', ':' or '-'");
    static final Options.Option<Boolean> READ_ONLY_DASHBOARD = Options.flag("read-only-dashboard", "the dashboard shows but changes nothing");
    /** The options of every system, before each system's own. */
    static final Options COMMON = Options.of(PORT, HOST, DATA).and(Stores.OPTIONS).and(Options.of(TABLE_PREFIX, NODE, READ_ONLY_DASHBOARD));

    /**
     * The parsed command line of {@code serve}.
     *
     * @param system  the system's name
     * @param values  the values of the {@link #COMMON} options and of the system's own
     * @param dataDir the service's folder
     */
    record Settings(String system, Options.Values values, Path dataDir) {
        /** Returns the table prefix: the one given, or the system's. */
        String tablePrefix() {
            return values.find(TABLE_PREFIX).orElse(prefix(system));
        }
    }

    /** Returns the usage of {@code serve}. */
    public static String usage() {
        StringBuilder b = new StringBuilder();
        b.append("usage: examples serve SYSTEM [--port N] [--host H] [--data DIR] [--jdbc-url URL [--user U] [--password P] | --in-memory]")
                .append(System.lineSeparator())
                .append("                      [--table-prefix P]").append(System.lineSeparator())
                .append("                      [--read-only-dashboard] [SYSTEM OPTIONS]").append(System.lineSeparator())
                .append(COMMON.usage("  "))
                .append("SYSTEM:").append(System.lineSeparator());
        for (Service.Factory f : Systems.all()) {
            b.append(String.format(Locale.ROOT, "  %-14s %s%n", f.name(), f.summary()));
            b.append(f.options().usage("      "));
        }
        return b.toString();
    }

    /**
     * Parses {@code args} (after {@code serve}).
     *
     * @throws IllegalArgumentException saying what is wrong with them
     */
    static Settings parse(List<String> args) {
        if (args.isEmpty()) throw new IllegalArgumentException("serve needs a SYSTEM: one of " + String.join(", ", Systems.names()));
        String system = args.get(0);
        Service.Factory factory = Systems.byName(system).orElseThrow(() -> new IllegalArgumentException(
                "unknown system '" + system + "'; known systems: " + String.join(", ", Systems.names())));
        return parse(factory, args.subList(1, args.size()));
    }

    /** Parses the options {@code args} (after the system's name) of {@code factory}'s system. */
    static Settings parse(Service.Factory factory, List<String> args) {
        String system = factory.name();
        Options.Values values = COMMON.and(factory.options()).parse(args, " for " + system + "; see examples serve --help");
        Stores.checkChoice(values);
        if (values.has(Stores.IN_MEMORY) && values.has(TABLE_PREFIX)) {
            throw new IllegalArgumentException("--table-prefix goes with a database, not --in-memory");
        }
        Path data = values.find(DATA).map(Paths::get).orElseGet(() -> Paths.get(System.getProperty("user.home"), ".statekit", system));
        return new Settings(system, values, data.toAbsolutePath().normalize());
    }

    /**
     * Runs {@code serve} with {@code args} until the process is stopped.
     *
     * @return the exit status when the service could not start: 2 for a usage error, 1 otherwise
     */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        long began = System.nanoTime();
        if (args.contains("--help") || args.contains("-h")) {
            out.print(usage());
            return 0;
        }
        Settings options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("examples serve: " + e.getMessage());
            err.print(usage());
            return 2;
        }
        Running running;
        try {
            running = start(options, out, err);
        } catch (IllegalArgumentException e) {
            err.println("examples serve: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            // one line: the cause in the database's or the system's words and what to change; the stack trace at DEBUG
            String message = e instanceof StartFailure ? e.getMessage() : e.getClass().getSimpleName() + ": " + e.getMessage();
            err.println("examples serve: cannot start " + options.system() + ": " + message.replaceAll("\\s+", " ").trim()
                    + String.format(Locale.ROOT, " (failed after %.2f s)", (System.nanoTime() - began) / 1e9));
            log.debug("start failed", e);
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println(options.system() + ": stopping");
            running.close();
            out.println(options.system() + ": stopped");
            out.flush();
            stopped.countDown();
        }, "serve-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** A started service: its store, the service and its server. */
    public static final class Running implements AutoCloseable {
        private final Stores.Opened store;
        private final Service service;
        private final HttpServer server;
        private final String base;

        Running(Stores.Opened store, Service service, HttpServer server, String base) {
            this.store = store;
            this.service = service;
            this.server = server;
            this.base = base;
        }

        /** Returns the service. */
        public Service service() {
            return service;
        }

        /** Returns the base address, e.g. {@code http://127.0.0.1:8080}. */
        public String base() {
            return base;
        }

        /** Stops the server, then the service's work, then closes the store. */
        @Override
        public synchronized void close() {
            server.close();
            try {
                service.close();
            } finally {
                store.close();
            }
        }
    }

    /**
     * Starts {@code serve} with {@code args} (after {@code serve}) in this process and returns it
     * running, for tests and for programs that embed a service; close it to stop.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code args}
     * @throws Exception                when the service cannot start
     */
    public static Running start(List<String> args, PrintStream out) throws Exception {
        return start(parse(args), out);
    }

    /**
     * Starts the service of {@code factory}, which need not be one of {@link Systems#all()}, with
     * the options {@code args} (what follows the system's name on the command line) in this process,
     * as {@link #start(List, PrintStream)} does: for tests of the serving layer with a service of
     * their own.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code args}
     * @throws Exception                when the service cannot start
     */
    public static Running start(Service.Factory factory, List<String> args, PrintStream out) throws Exception {
        return start(factory, parse(factory, args), out);
    }

    /** Opens the store, creates and starts the service and its server, and prints where it listens. */
    static Running start(Settings options, PrintStream out) throws Exception {
        return start(options, out, System.err);
    }

    private static Running start(Settings options, PrintStream out, PrintStream err) throws Exception {
        return start(Systems.byName(options.system()).orElseThrow(), options, out, err);
    }

    private static Running start(Service.Factory factory, Settings options, PrintStream out) throws Exception {
        return start(factory, options, out, System.err);
    }

    /**
     * Checks what fails for good before anything starts (the data folder can be written, the port
     * is free), opens the store, creates and starts the service and its server, and prints where it
     * listens. A failure that waiting cannot mend is a {@link StartFailure}; only a database that
     * does not answer yet is waited for, up to {@link Stores#STARTING_WAIT}, said once on {@code err}.
     */
    private static Running start(Service.Factory factory, Settings options, PrintStream out, PrintStream err) throws Exception {
        Options.Values values = options.values();
        checkWritable(options.dataDir());
        checkPort(values.get(HOST), values.get(PORT));
        String prefix = options.tablePrefix();
        Stores.Opened store;
        boolean soleOwner = false;
        Optional<String> url = values.find(Stores.JDBC_URL);
        java.util.function.Consumer<String> notice = line -> {
            err.println(options.system() + ": " + line);
            err.flush();
        };
        if (values.get(Stores.IN_MEMORY)) {
            store = Stores.inMemory();
        } else if (url.isPresent()) {
            // an H2 file given by URL gets the default's WRITE_DELAY=0 and DB_CLOSE_ON_EXIT=FALSE when it lacks them
            Stores.H2Url h2 = Stores.durable(url.get());
            if (h2.warning() != null) notice.accept(h2.warning());
            store = Stores.persistent(h2.url(), values.find(Stores.USER).orElse(null), values.find(Stores.PASSWORD).orElse(null), prefix,
                    POOL_SIZE, Stores.STARTING_WAIT, notice);
        } else {
            // WRITE_DELAY=0: a commit is in the file when it returns; by default H2 writes it up to a second later, and a killed process loses it
            // DB_CLOSE_ON_EXIT=FALSE: the shutdown hook closes the store after the service stopped; H2's own hook closed it under the stopping runtime
            try {
                store = Stores.persistent("jdbc:h2:file:" + options.dataDir().resolve("statekit") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE", "sa", "",
                        prefix, POOL_SIZE, Stores.STARTING_WAIT, notice);
            } catch (StartFailure e) {
                if (e.kind() != StartFailure.Kind.IN_USE) throw e;
                throw e.withRemedy("another process serves this data folder: stop it, or give this one another --data");
            }
            // H2 locks the file to this process: every lease found at start belongs to a process that is gone
            soleOwner = true;
        }
        Service service = null;
        try {
            String owner = owner(options.system(), values.find(NODE));
            ServeContext context = new ServeContext(store.store(), Clock.system(), options.dataDir(), owner, soleOwner, values);
            service = factory.create(context);
            Router router = new Router();
            service.routes(router);
            ServiceDashboard.mount(router, service, factory.name(), values.get(READ_ONLY_DASHBOARD));
            service.start();
            HttpServer server;
            try {
                server = HttpServer.start(values.get(HOST), values.get(PORT), router, HttpServer.Limits.DEFAULTS.withMaxBody(service.maxBody()));
            } catch (IOException e) {
                throw portFailure(values.get(HOST), values.get(PORT), e);
            }
            String host = values.get(HOST).contains(":") ? "[" + values.get(HOST) + "]" : values.get(HOST);
            String base = "http://" + host + ":" + server.port();
            out.println(options.system() + ": store " + store.description() + "; files in " + options.dataDir());
            out.println(options.system() + ": " + String.format(Locale.ROOT, LISTENING, base, base));
            out.flush();
            return new Running(store, service, server, base);
        } catch (Exception | Error e) {
            if (service != null) service.close();
            store.close();
            throw e;
        }
    }

    /**
     * Checks that the data folder {@code dir} exists or can be made, and that a file can be
     * written in it (the H2 database and the service's files go there).
     *
     * @throws StartFailure with the system's words ({@code Permission denied}, {@code Read-only file system}, …)
     */
    static void checkWritable(Path dir) {
        try {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".write-check-", ".tmp");
            Files.delete(probe);
        } catch (IOException e) {
            throw new StartFailure(StartFailure.Kind.NOT_WRITABLE, "cannot write the data folder " + dir, StartFailure.reason(e),
                    "give --data a folder this user can write", e);
        }
    }

    /**
     * Checks that {@code host}:{@code port} can be listened on (as the server will, with
     * {@code SO_REUSEADDR}), before the store opens; port 0 always can.
     *
     * @throws StartFailure with the system's words ({@code Address already in use}, {@code Permission denied}, …)
     */
    static void checkPort(String host, int port) {
        if (port == 0) return;
        try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress(host, port));
        } catch (IOException e) {
            throw portFailure(host, port, e);
        }
    }

    /** Returns the failure to listen on {@code host}:{@code port} because of {@code e} (or the socket error under it). */
    private static StartFailure portFailure(String host, int port, IOException e) {
        Throwable t = e;
        while (t.getCause() != null && !(t instanceof java.net.SocketException)) t = t.getCause();
        String reason = t instanceof IOException io ? StartFailure.reason(io) : String.valueOf(t.getMessage());
        return new StartFailure(StartFailure.Kind.PORT, "cannot listen on " + host + ":" + port, reason,
                "give --port a free port (0 picks one) or --host an address of this machine, or stop the process listening there", e);
    }

    /** Returns the table prefix of {@code system}'s store: its name's letters, e.g. {@code novel_proofer_}. */
    static String prefix(String system) {
        return system.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_") + "_";
    }

    /**
     * Returns the owner name of this process's leases: {@code SYSTEM@NODE} with {@code --node}, so
     * that a process restarted with the same name takes the tasks it held back at once; without it a
     * name unique to this start ({@code SYSTEM@HOST-PID-RANDOM}), whose leases a restart leaves to
     * expire. Two processes that share a store must not share a node name.
     */
    static String owner(String system, Optional<String> node) {
        if (node.isPresent()) return system + "@" + node.get();
        return system + "@" + host() + "-" + ProcessHandle.current().pid() + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36);
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "-");
        } catch (IOException e) {
            return "host";
        }
    }
}
