package dev.statekit.examples.hosts.programs;

import dev.statekit.core.Created;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.hosts.ReadDoHost.Export;
import dev.statekit.store.Store;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Read→Do sample program: three items captured (one twice), processed by the runtime of a
 * {@link ReadDoHost}, one failing at its todos step and retried, then all exported (one export
 * repeated with its key).
 */
public final class ReadDoProgram {
    private static final Set<State> WORKED_ON = EnumSet.of(State.READY, State.SHIPPED, State.FAILED_EXTRACTION, State.FAILED_AI,
            State.FAILED_EXPORT, State.ARCHIVED);

    private ReadDoProgram() {}

    /**
     * Runs the sample program on {@code store}. Prints what happens and a summary.
     *
     * @return 0 when every item was shipped, 1 otherwise
     */
    public static int run(Store store, PrintStream out) throws InterruptedException {
        out.println("read-do host: items through extract, summarize, score, todos, card under a lease");
        try (ReadDoHost host = new ReadDoHost(store); Conditions conditions = new Conditions(host.engine())) {
            return program(host, conditions, out);
        }
    }

    private static int program(ReadDoHost host, Conditions conditions, PrintStream out) throws InterruptedException {
        host.start();
        List<Long> items = new ArrayList<>();
        String[] urls = {"https://example.org/essay", "https://example.org/flaky-report", "https://example.org/interview"};
        for (int i = 0; i < urls.length; i++) {
            Created<State> c = host.capture(urls[i], "capture-" + i);
            items.add(c.task().id());
            out.println("captured item " + c.task().id() + " " + urls[i]);
        }
        Created<State> again = host.capture(urls[0], "capture-0");
        out.println("captured " + urls[0] + " again with capture_id capture-0: item " + again.task().id()
                + (again.created() ? " (new)" : " (the same item, nothing queued)"));
        if (!conditions.await(() -> items.stream().allMatch(id -> WORKED_ON.contains(host.item(id).state())), Duration.ofSeconds(20))) {
            out.println("the pipeline did not finish in time");
            return 1;
        }
        int failures = 0;
        for (long id : items) {
            Task<State> t = host.item(id);
            out.println("item " + id + " " + t.state() + describe(t));
            if (t.state() == State.FAILED_AI || t.state() == State.FAILED_EXTRACTION) {
                failures++;
                Outcome<State> retry = host.process(id, "retry-" + id, "user");
                out.println("retry item " + id + " (POST /process): " + (retry.isApplied() ? retry.orElseThrow().task().state() : retry));
            }
        }
        if (!conditions.await(() -> items.stream().allMatch(id -> host.item(id).state() == State.READY), Duration.ofSeconds(20))) {
            out.println("the retried items did not become ready in time");
            return 1;
        }
        for (long id : items) {
            Task<State> t = host.item(id);
            out.println("item " + id + " READY with run " + t.attribute(ReadDoItem.RUN_ID) + ", score " + t.attribute("score"));
        }
        int replays = 0;
        for (long id : items) {
            String key = "export-" + id + "-card-v1-tpl-v1";
            Export e = host.export(id, key, "user");
            out.println("export item " + id + " key " + key + ": " + e.outcome().orElseThrow().task().state() + ", file " + e.file()
                    + (e.written() ? " written" : ""));
        }
        Export repeat = host.export(items.get(0), "export-" + items.get(0) + "-card-v1-tpl-v1", "user");
        if (repeat.outcome() instanceof Outcome.Applied<State> a && a.replayed() && !repeat.written()) replays++;
        out.println("export item " + items.get(0) + " again with the same key: "
                + (replays == 1 ? "replayed, file " + repeat.file() + ", nothing written" : "NOT replayed"));
        long shipped = items.stream().filter(id -> host.item(id).state() == State.SHIPPED).count();
        out.println(String.format(Locale.ROOT, "summary: %d/%d items shipped, %d failed and retried, %d export files written, %d export replayed",
                shipped, items.size(), failures, host.filesWritten(), replays));
        return shipped == items.size() && replays == 1 ? 0 : 1;
    }

    /** The run of a ready item, or the failure of a failed one as the API shows it. */
    private static String describe(Task<State> t) {
        if (t.state() == State.READY) return " (" + t.attribute(ReadDoItem.RUN_ID) + ")";
        Map<String, String> failure = ReadDoHost.failure(t);
        String step = failure.get("failed_step");
        if (step == null) return "";
        return " at step " + step + ": " + failure.get("error_code") + ", " + failure.get("message")
                + (Boolean.parseBoolean(failure.get("retryable")) ? " (retryable)" : " (not retryable)");
    }
}
