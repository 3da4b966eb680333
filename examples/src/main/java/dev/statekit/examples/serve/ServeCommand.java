package dev.statekit.examples.serve;

import dev.statekit.core.spi.Clock;
import dev.statekit.examples.Stores;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
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
 *                           the database at URL (PostgreSQL or H2) instead of the H2 database in DIR
 * --table-prefix P          the prefix of the store's tables (default: the system's name, e.g. novel_proofer_)
 * --in-memory               an in-memory store: nothing survives the process
 * --read-only-dashboard     the dashboard shows but changes nothing
 * </pre>
 *
 * plus each system's own options ({@link Service.Factory#options()}). Every process serving one
 * system on one database shares its tasks and its work.
 */
public final class ServeCommand {
    /** The line the command prints once it serves; {@code %s} is the base address. */
    public static final String LISTENING = "listening on %s (dashboard: %s/ui)";
    /** The store's connections: the runtime's and at most {@link HttpServer.Limits#activeRequests} requests at once. */
    static final int POOL_SIZE = 16;

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    private ServeCommand() {}

    /** The parsed command line of {@code serve}. */
    record Options(String system, int port, String host, Path dataDir, @Nullable String url, @Nullable String user,
                   @Nullable String password, String tablePrefix, boolean inMemory, boolean readOnlyDashboard, Map<String, String> serviceOptions) {}

    /** Returns the usage of {@code serve}. */
    public static String usage() {
        StringBuilder b = new StringBuilder();
        b.append("usage: examples serve SYSTEM [--port N] [--host H] [--data DIR] [--jdbc-url URL [--user U] [--password P] | --in-memory]")
                .append(System.lineSeparator())
                .append("                      [--table-prefix P]").append(System.lineSeparator())
                .append("                      [--read-only-dashboard] [SYSTEM OPTIONS]").append(System.lineSeparator())
                .append("  --data DIR defaults to ~/.statekit/SYSTEM (the H2 database and the service's files)").append(System.lineSeparator())
                .append("SYSTEM:").append(System.lineSeparator());
        for (Service.Factory f : Systems.all()) {
            b.append(String.format(Locale.ROOT, "  %-14s %s%n", f.name(), f.summary()));
            for (Map.Entry<String, String> o : f.options().entrySet()) {
                b.append(String.format(Locale.ROOT, "      --%-24s %s%n", o.getKey() + " V", o.getValue()));
            }
        }
        return b.toString();
    }

    /**
     * Parses {@code args} (after {@code serve}).
     *
     * @throws IllegalArgumentException saying what is wrong with them
     */
    static Options parse(List<String> args) {
        if (args.isEmpty()) throw new IllegalArgumentException("serve needs a SYSTEM: one of " + String.join(", ", Systems.names()));
        String system = args.get(0);
        Service.Factory factory = Systems.byName(system).orElseThrow(() -> new IllegalArgumentException(
                "unknown system '" + system + "'; known systems: " + String.join(", ", Systems.names())));
        int port = 8080;
        String host = "127.0.0.1";
        Path data = null;
        String url = null;
        String user = null;
        String password = null;
        String prefix = null;
        boolean inMemory = false;
        boolean readOnly = false;
        Map<String, String> serviceOptions = new LinkedHashMap<>();
        List<String> seen = new ArrayList<>();
        for (int i = 1; i < args.size(); i++) {
            String option = args.get(i);
            if (!option.startsWith("--")) throw new IllegalArgumentException("unexpected argument '" + option + "'");
            if (seen.contains(option)) throw new IllegalArgumentException(option + " is given twice");
            seen.add(option);
            if (option.equals("--in-memory")) {
                inMemory = true;
                continue;
            }
            if (option.equals("--read-only-dashboard")) {
                readOnly = true;
                continue;
            }
            String name = option.substring(2);
            boolean known = List.of("port", "host", "data", "jdbc-url", "user", "password", "table-prefix").contains(name)
                    || factory.options().containsKey(name);
            if (!known) {
                throw new IllegalArgumentException("unknown option " + option + " for " + system + "; see examples serve --help");
            }
            if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) throw new IllegalArgumentException(option + " needs a value");
            String value = args.get(++i);
            switch (name) {
                case "port" -> {
                    try {
                        port = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        port = -1;
                    }
                    if (port < 0 || port > 65535) throw new IllegalArgumentException("--port must be a number from 0 to 65535, not '" + value + "'");
                }
                case "host" -> host = value;
                case "data" -> data = Paths.get(value);
                case "jdbc-url" -> url = value;
                case "user" -> user = value;
                case "password" -> password = value;
                case "table-prefix" -> {
                    if (!value.matches("[a-z][a-z0-9_]{0,29}")) {
                        throw new IllegalArgumentException("--table-prefix must be a lower-case letter and up to 29 letters, digits or _, not '" + value + "'");
                    }
                    prefix = value;
                }
                default -> serviceOptions.put(name, value);
            }
        }
        if (inMemory && url != null) throw new IllegalArgumentException("--in-memory and --jdbc-url are two stores; give one");
        if (inMemory && prefix != null) throw new IllegalArgumentException("--table-prefix goes with a database, not --in-memory");
        if (url == null && (user != null || password != null)) throw new IllegalArgumentException("--user and --password go with --jdbc-url");
        if (data == null) data = Paths.get(System.getProperty("user.home"), ".statekit", system);
        return new Options(system, port, host, data.toAbsolutePath().normalize(), url, user, password,
                prefix == null ? prefix(system) : prefix, inMemory, readOnly, serviceOptions);
    }

    /**
     * Runs {@code serve} with {@code args} until the process is stopped.
     *
     * @return the exit status when the service could not start: 2 for a usage error, 1 otherwise
     */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(usage());
            return 0;
        }
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("examples serve: " + e.getMessage());
            err.print(usage());
            return 2;
        }
        Running running;
        try {
            running = start(options, out);
        } catch (IllegalArgumentException e) {
            err.println("examples serve: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("examples serve: cannot start " + options.system() + ": " + e.getMessage());
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

    /** Opens the store, creates and starts the service and its server, and prints where it listens. */
    static Running start(Options options, PrintStream out) throws Exception {
        Service.Factory factory = Systems.byName(options.system()).orElseThrow();
        Files.createDirectories(options.dataDir());
        String prefix = options.tablePrefix();
        Stores.Opened store;
        if (options.inMemory()) {
            store = Stores.inMemory();
        } else if (options.url() != null) {
            store = Stores.persistent(options.url(), options.user(), options.password(), prefix, POOL_SIZE);
        } else {
            // WRITE_DELAY=0: a commit is in the file when it returns (by default H2 writes it up to a second later, and a killed
            // process loses it); DB_CLOSE_ON_EXIT=FALSE: H2's own shutdown hook leaves the database open for the graceful stop
            store = Stores.persistent("jdbc:h2:file:" + options.dataDir().resolve("statekit") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE",
                    "sa", "", prefix, POOL_SIZE);
        }
        Service service = null;
        try {
            ServeContext context = new ServeContext(store.store(), Clock.system(), options.dataDir(), owner(options.system()),
                    options.serviceOptions());
            service = factory.create(context);
            Router router = new Router();
            service.routes(router);
            new Dashboard(service, factory.name(), options.readOnlyDashboard()).routes(router);
            service.start();
            HttpServer server = HttpServer.start(options.host(), options.port(), router, HttpServer.Limits.DEFAULTS);
            String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
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

    /** Returns the table prefix of {@code system}'s store: its name's letters, e.g. {@code novel_proofer_}. */
    static String prefix(String system) {
        return system.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_") + "_";
    }

    private static String owner(String system) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "host";
        }
        return system + "@" + host + "-" + ProcessHandle.current().pid() + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36);
    }
}
