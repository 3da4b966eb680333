package dev.statekit.examples;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.examples.ReadDoItem.Event;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.programs.CompressionProgram;
import dev.statekit.examples.hosts.programs.EtlProgram;
import dev.statekit.examples.hosts.programs.NovelProoferProgram;
import dev.statekit.examples.hosts.programs.ReadDoProgram;
import dev.statekit.examples.serve.Options;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code examples} command line.
 *
 * <pre>
 * examples serve SYSTEM [OPTIONS]   a seed system as a service with its HTTP API and a dashboard at /ui (see ServeCommand)
 * examples demo SYSTEM [STORE]      a scripted program of SYSTEM that ends by itself within seconds:
 *                                   novel-proofer, read-do, etl, compression; or lifecycle: a read-do
 *                                   item driven through its lifecycle by hand on an in-memory store
 * examples list                     the names of the seed machines
 * examples diagram NAME             the Mermaid diagram of machine NAME
 * examples --help                   this usage, on standard output
 * </pre>
 *
 * <p>A scripted program's exit status is 0 when the run ended as expected. Its store is, after the
 * system's name:
 *
 * <pre>
 * (nothing)                                   an H2 database in ~/.statekit/demo/ (created when missing)
 * --jdbc-url URL [--user U] [--password P]    the database at URL: PostgreSQL, MariaDB, or H2
 * --in-memory                                 an in-memory store
 * </pre>
 *
 * A JDBC store of a program runs on tables of a fresh prefix, dropped at the end of the run (see
 * {@link Stores}). Every bad argument is reported by what is wrong with it, with the usage, and
 * exit status 2.
 */
public final class Main {
    /** The simple logger's setting of the logger MariaDB's driver logs the server's errors to. */
    private static final String MARIADB_ERRORS_LOG = "org.slf4j.simpleLogger.log.org.mariadb.jdbc.message.server.ErrorPacket";

    static {
        // the runtime, the pool and the server log their life at INFO; the commands print what happens
        // themselves. Set before any logger exists: the usage below loads the services' classes.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        // MariaDB's driver logs every error the server answers at WARN, before the store or the command
        // says it in its own words (a refused start in one line, a lock wait the store retries): its own
        // line would only repeat it.
        if (System.getProperty(MARIADB_ERRORS_LOG) == null) System.setProperty(MARIADB_ERRORS_LOG, "error");
    }

    /** The programs of {@code examples demo}. */
    static final List<String> PROGRAMS = List.of("novel-proofer", "read-do", "etl", "compression", "lifecycle");
    /** The directory of the scripted programs' default H2 database. */
    public static final java.nio.file.Path DEMO_H2_DIR = java.nio.file.Paths.get(System.getProperty("user.home"), ".statekit", "demo");

    private static final String USAGE = String.join(System.lineSeparator(),
            "usage: examples serve SYSTEM [OPTIONS]     a seed system as a service: its HTTP API and a dashboard at /ui",
            "                                           (SYSTEM: " + String.join(", ", dev.statekit.examples.serve.Systems.names())
                    + "; examples serve --help for OPTIONS)",
            "       examples demo SYSTEM [STORE]        a scripted program: novel-proofer, read-do, etl, compression,",
            "                                           or lifecycle (a read-do item by hand, in memory)",
            "       examples list                       the names of the seed machines",
            "       examples diagram NAME               the Mermaid diagram of machine NAME",
            "       examples --help                     this usage",
            "STORE: nothing for an H2 database in " + DEMO_H2_DIR + ", --jdbc-url URL [--user U] [--password P]"
                    + " for PostgreSQL or MariaDB (or H2) at URL, --in-memory for an in-memory store",
            "");

    /** A sample program over a store. */
    @FunctionalInterface
    private interface Host {
        int run(Store store, PrintStream out) throws InterruptedException;
    }

    private Main() {}

    /** Runs the command line and exits with its status when that is not 0. */
    public static void main(String[] args) {
        int status = run(List.of(args), System.out, System.err);
        System.out.flush();
        if (status != 0) System.exit(status);
    }

    /**
     * Runs one command line, writing to {@code out} and {@code err}.
     *
     * @return the exit status: 0 on success, 1 when a program did not end as expected or a store
     *         could not be opened, 2 on a usage error or an unknown machine
     */
    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty()) return usage(err, "no command given");
        String command = args.get(0);
        List<String> rest = args.subList(1, args.size());
        switch (command) {
            case "--help", "-h", "help":
                out.print(USAGE);
                return 0;
            case "serve":
                return dev.statekit.examples.serve.ServeCommand.run(rest, out, err);
            case "demo":
                return demo(rest, out, err);
            case "list":
                if (!rest.isEmpty()) return usage(err, "list takes no arguments, not '" + rest.get(0) + "'");
                for (String name : SeedMachines.names()) out.println(name);
                return 0;
            case "diagram":
                if (rest.isEmpty()) return usage(err, "diagram needs a machine NAME: one of " + String.join(", ", SeedMachines.names()));
                if (rest.size() > 1) return usage(err, "diagram takes one NAME, not also '" + rest.get(1) + "'");
                Optional<String> diagram = diagram(rest.get(0));
                if (diagram.isEmpty()) {
                    err.println("unknown machine '" + rest.get(0) + "'; known machines: " + String.join(", ", SeedMachines.names()));
                    return 2;
                }
                out.print(diagram.get());
                return 0;
            default:
                if (PROGRAMS.contains(command)) {
                    return usage(err, "unknown command '" + command + "'; its scripted program is 'examples demo " + command
                            + "'" + (dev.statekit.examples.serve.Systems.names().contains(command)
                            ? ", its service 'examples serve " + command + "'" : ""));
                }
                return usage(err, "unknown command '" + command + "'");
        }
    }

    /** Returns the Mermaid diagram of the seed machine {@code name}, if there is one. */
    static Optional<String> diagram(String name) {
        return SeedMachines.byName(name).map(Machine::toMermaid);
    }

    private static int demo(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty()) return usage(err, "demo needs a SYSTEM: one of " + String.join(", ", PROGRAMS));
        String program = args.get(0);
        List<String> options = args.subList(1, args.size());
        switch (program) {
            case "novel-proofer":
                return host(options, out, err, NovelProoferProgram::run);
            case "read-do":
                return host(options, out, err, ReadDoProgram::run);
            case "etl":
                return host(options, out, err, EtlProgram::run);
            case "compression":
                return host(options, out, err, CompressionProgram::run);
            case "lifecycle":
                if (!options.isEmpty()) return usage(err, "demo lifecycle runs in memory and takes no options, not '" + options.get(0) + "'");
                demo(out);
                return 0;
            default:
                return usage(err, "unknown program '" + program + "'; known programs: " + String.join(", ", PROGRAMS));
        }
    }

    private static int host(List<String> options, PrintStream out, PrintStream err, Host host) {
        Options.Values store;
        try {
            store = Stores.OPTIONS.parse(options, "; a program takes --jdbc-url URL [--user U] [--password P] or --in-memory");
            Stores.checkChoice(store);
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        Stores.Opened opened;
        try {
            opened = open(store);
        } catch (RuntimeException e) {
            err.println("cannot open the store: " + e.getMessage());
            return 1;
        }
        try (opened) {
            out.println("store: " + opened.description());
            return host.run(opened.store(), out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("interrupted");
            return 1;
        }
    }

    /** Opens the store {@code options} choose: in memory, at --jdbc-url, or the H2 database in {@link #DEMO_H2_DIR}. */
    private static Stores.Opened open(Options.Values options) {
        if (options.get(Stores.IN_MEMORY)) return Stores.inMemory();
        Optional<String> url = options.find(Stores.JDBC_URL);
        return url.isPresent() ? Stores.jdbc(url.get(), options.find(Stores.USER).orElse(null), options.find(Stores.PASSWORD).orElse(null))
                : Stores.h2(DEMO_H2_DIR);
    }

    private static int usage(PrintStream err, String problem) {
        err.println("examples: " + problem);
        err.print(USAGE);
        return 2;
    }

    /** Drives one read-do item from capture to unarchive, printing every outcome and the history. */
    static void demo(PrintStream out) {
        ManualClock clock = new ManualClock();
        TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();
        Machine<State, Event> machine = ReadDoItem.MACHINE;

        out.println("read-do-item demo: in-memory store, manual clock");
        long id = engine.create(machine, TaskSpec.defaults()
                .attribute("url", "https://example.org/article")
                .attribute("intent", "turn into a checklist")
                .idempotencyKey("capture-7f3a")).task().id();
        out.println("created   item " + id + " in " + machine.initial());

        step(out, clock, engine, machine, id, Event.ENQUEUE, Command.system().reason("auto-enqueue"));
        Outcome<State> leased = step(out, clock, engine, machine, id, Event.LEASE, Command.system().actor("worker-1"));
        String run = leased.orElseThrow().task().attribute(ReadDoItem.RUN_ID);
        step(out, clock, engine, machine, id, Event.PROCESS, Command.user("alice").reason("process it now"));
        Command success = Command.system().actor("worker-1").reason("pipeline success");
        for (String artifact : ReadDoItem.REQUIRED_ARTIFACTS) success = success.set(ReadDoItem.artifactKey(artifact), String.valueOf(run));
        step(out, clock, engine, machine, id, Event.PIPELINE_SUCCEEDED, success);
        step(out, clock, engine, machine, id, Event.EXPORT_SUCCEEDED,
                Command.user("alice").reason("POST /export").idempotencyKey("export-" + id + "-card-v1-tpl-v1"));
        step(out, clock, engine, machine, id, Event.ARCHIVE, Command.user("alice").reason("POST /archive"));
        step(out, clock, engine, machine, id, Event.UNARCHIVE, Command.user("alice").reason("POST /unarchive"));

        out.println("attributes " + engine.find(machine, id).orElseThrow().attributes());
        out.println("history of item " + id + ":");
        for (HistoryEntry e : engine.history(id)) {
            out.println(String.format(Locale.ROOT, "  v%d %s %-18s %-10s -> %-10s by %s%s", e.version(), e.at(), e.event(),
                    e.from(), e.to(), e.source().name().toLowerCase(Locale.ROOT), e.actor() == null ? "" : " (" + e.actor() + ")"));
        }
    }

    private static Outcome<State> step(PrintStream out, ManualClock clock, TransitionEngine engine,
                                       Machine<State, Event> machine, long id, Event event, Command command) {
        clock.advance(Duration.ofSeconds(1));
        Outcome<State> outcome = engine.fire(machine, id, event, command);
        if (outcome instanceof Outcome.Applied<State> applied) {
            HistoryEntry e = applied.entry();
            out.println(String.format(Locale.ROOT, "applied   %-18s %s -> %s (v%d)", event, e.from(), e.to(), e.version()));
        } else if (outcome instanceof Outcome.Refused<State> refused) {
            out.println(String.format(Locale.ROOT, "refused   %-18s %s %s: %s", event, refused.code(), refused.reasonCode(),
                    refused.message()));
        }
        return outcome;
    }
}
