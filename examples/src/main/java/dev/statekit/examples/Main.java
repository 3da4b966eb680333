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
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.InMemoryStore;
import dev.statekit.store.Store;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@code examples} command line.
 *
 * <pre>
 * examples [novel-proofer]  the novel-proofer host: a job's chunks proofread by the runtime (the default)
 * examples read-do          the Read→Do host: items through the pipeline, a failure, a retry, exports
 * examples etl              the ETL host: OCR chained with post-processing, a cancel refused after start
 * examples compression      the compression host: one task at a time, priorities, pause, a retry
 * examples demo             a read-do item driven through its lifecycle by hand on an in-memory store
 * examples list             the names of the seed machines
 * examples diagram NAME     the Mermaid diagram of machine NAME
 * </pre>
 *
 * <p>The hosts run on the system clock and end by themselves within seconds; their exit status is
 * 0 when the run ended as expected. Their store is, after the host's name:
 *
 * <pre>
 * (nothing)                                   an H2 database in ./build/statekit-h2/ (created when missing)
 * --jdbc-url URL [--user U] [--password P]    the database at URL: PostgreSQL, or H2
 * --in-memory                                 an in-memory store
 * </pre>
 *
 * A JDBC store runs on tables of a fresh prefix, dropped at the end of the run (see {@link Stores}).
 */
public final class Main {
    private static final String USAGE = String.join(System.lineSeparator(),
            "usage: examples [novel-proofer | read-do | etl | compression] [STORE]",
            "       examples demo | list | diagram NAME",
            "STORE: nothing for an H2 database in ./build/statekit-h2/, --jdbc-url URL [--user U] [--password P]"
                    + " for PostgreSQL (or H2) at URL, --in-memory for an in-memory store");

    /** A sample program over a store. */
    @FunctionalInterface
    private interface Host {
        int run(Store store, PrintStream out) throws InterruptedException;
    }

    private Main() {}

    /** Runs the command line and exits with its status when that is not 0. */
    public static void main(String[] args) {
        // the runtime logs its life at INFO; the hosts print what happens themselves
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        int status = run(List.of(args), System.out, System.err);
        System.out.flush();
        if (status != 0) System.exit(status);
    }

    /**
     * Runs one command line, writing to {@code out} and {@code err}.
     *
     * @return the exit status: 0 on success, 1 when a host did not end as expected, 2 on a usage
     *         error or an unknown machine
     */
    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (!args.isEmpty() && args.get(0).startsWith("--")) {
            List<String> withHost = new java.util.ArrayList<>();
            withHost.add("novel-proofer");
            withHost.addAll(args);
            args = withHost;
        }
        String command = args.isEmpty() ? "novel-proofer" : args.get(0);
        switch (command) {
            case "novel-proofer":
                return host(args, out, err, NovelProoferProgram::run);
            case "read-do":
                return host(args, out, err, ReadDoProgram::run);
            case "etl":
                return host(args, out, err, EtlProgram::run);
            case "compression":
                return host(args, out, err, CompressionProgram::run);
            case "serve":
                return dev.statekit.examples.serve.ServeCommand.run(args.subList(1, args.size()), out, err);
            case "demo":
                if (args.size() > 1) return usage(err);
                demo(out);
                return 0;
            case "list":
                if (args.size() > 1) return usage(err);
                for (String name : SeedMachines.names()) out.println(name);
                return 0;
            case "diagram":
                if (args.size() != 2) return usage(err);
                Optional<String> diagram = diagram(args.get(1));
                if (diagram.isEmpty()) {
                    err.println("unknown machine '" + args.get(1) + "'; known machines: " + String.join(", ", SeedMachines.names()));
                    return 2;
                }
                out.print(diagram.get());
                return 0;
            default:
                return usage(err);
        }
    }

    /** Returns the Mermaid diagram of the seed machine {@code name}, if there is one. */
    static Optional<String> diagram(String name) {
        return SeedMachines.byName(name).map(Machine::toMermaid);
    }

    private static int host(List<String> args, PrintStream out, PrintStream err, Host host) {
        StoreChoice choice = StoreChoice.parse(args.isEmpty() ? List.of() : args.subList(1, args.size()));
        if (choice == null) return usage(err);
        Stores.Opened opened;
        try {
            opened = choice.open();
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

    /** The store options of a host command. */
    private record StoreChoice(boolean inMemory, @Nullable String url, @Nullable String user, @Nullable String password) {
        /** Returns the choice {@code options} make, or null when they are not valid. */
        static @Nullable StoreChoice parse(List<String> options) {
            boolean inMemory = false;
            String url = null;
            String user = null;
            String password = null;
            for (int i = 0; i < options.size(); i++) {
                String option = options.get(i);
                if (option.equals("--in-memory")) {
                    if (inMemory) return null;
                    inMemory = true;
                    continue;
                }
                if (i + 1 >= options.size()) return null;
                String value = options.get(++i);
                switch (option) {
                    case "--jdbc-url" -> {
                        if (url != null) return null;
                        url = value;
                    }
                    case "--user" -> {
                        if (user != null) return null;
                        user = value;
                    }
                    case "--password" -> {
                        if (password != null) return null;
                        password = value;
                    }
                    default -> {
                        return null;
                    }
                }
            }
            if (inMemory && url != null) return null;
            if (url == null && (user != null || password != null)) return null;
            return new StoreChoice(inMemory, url, user, password);
        }

        Stores.Opened open() {
            if (inMemory) return Stores.inMemory();
            String u = url;
            return u != null ? Stores.jdbc(u, user, password) : Stores.h2(Stores.DEFAULT_H2_DIR);
        }
    }

    private static int usage(PrintStream err) {
        err.println(USAGE);
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
