package dev.statekit.examples.hosts.programs;

import dev.statekit.core.Task;
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.examples.hosts.NovelProoferHost;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Store;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The novel-proofer sample program: one job of six chunks through validate, process (three
 * workers, some chunks rate limited once), the merge gate and merge, on a {@link NovelProoferHost}.
 */
public final class NovelProoferProgram {
    /** The text of the sample job: six paragraphs with slips for the LLM to correct. */
    static final String SAMPLE = String.join("\n\n",
            "It was late when teh ferry left the harbour , and the lamps swung  in the wind.",
            "Mara counted the crates twice , then a third time, because teh numbers never agreed.",
            "The captain said nothing. He watched the  coast fade until it was a grey line.",
            "By midnight the sea had calmed , and teh crew slept in turns below deck.",
            "Mara stayed up with the ledger, checking  every entry against the manifest.",
            "At dawn she found it: one crate too many , and no name written on teh lid.");

    private NovelProoferProgram() {}

    /**
     * Runs the sample program on {@code store}. Prints what happens and a summary.
     *
     * @return 0 when the job ended done, 1 otherwise
     */
    public static int run(Store store, PrintStream out) throws InterruptedException {
        out.println("novel-proofer host: one job, chunks proofread by the runtime with a simulated LLM");
        try (NovelProoferHost host = new NovelProoferHost(store); Conditions conditions = new Conditions(host.engine())) {
            return program(host, conditions, out);
        }
    }

    private static int program(NovelProoferHost host, Conditions conditions, PrintStream out) throws InterruptedException {
        host.start();
        long job = host.submit("The Ferry", SAMPLE);
        out.println("job " + job + " submitted: " + host.job(job).state());
        host.validate(job).orElseThrow();
        out.println("job " + job + " validated: " + host.job(job).attribute(NovelProoferHost.TOTAL_CHUNKS) + " chunks, "
                + describe(host.job(job)));
        host.startProcess(job, "user").orElseThrow();
        out.println("job " + job + " processing: " + describe(host.job(job)));
        boolean processed = conditions.await(() -> {
            Task<NovelProoferJob.State> j = host.job(job);
            return j.state() == NovelProoferJob.State.ERROR
                    || (j.state() == NovelProoferJob.State.PAUSED && NovelProoferJob.MERGE.equals(j.attribute(NovelProoferJob.PHASE)));
        }, Duration.ofSeconds(30));
        if (!processed) {
            out.println("job " + job + " did not finish processing in time: " + describe(host.job(job)));
            return 1;
        }
        out.println("job " + job + " processed, waiting at the merge gate: " + describe(host.job(job)));
        Optional<String> merged = host.merge(job, "user");
        Task<NovelProoferJob.State> done = host.job(job);
        out.println("job " + job + " merged: " + merged.map(String::length).orElse(0) + " characters, " + describe(done));
        List<Task<NovelProoferChunk.State>> chunks = host.chunks(job);
        long doneChunks = chunks.stream().filter(c -> c.state() == NovelProoferChunk.State.DONE).count();
        long retried = chunks.stream().filter(c -> c.record().retries() > 0).count();
        for (Task<NovelProoferChunk.State> c : chunks) {
            out.println(String.format(Locale.ROOT, "  chunk %d (#%s) %s, attempts %d, retries %d%s: %s", c.id(),
                    c.attribute(NovelProoferHost.INDEX), c.state(), c.record().attempts(), c.record().retries(),
                    c.record().lastError() == null ? "" : ", last error " + c.record().lastError().code(),
                    String.join(" ", host.engine().history(c.id()).stream().map(HistoryEntry::event).toList())));
        }
        out.println("merged text:");
        merged.ifPresent(text -> text.lines().forEach(l -> out.println("  " + l)));
        out.println(String.format(Locale.ROOT, "summary: job %d %s, %d/%d chunks done, %d retried after 429",
                job, done.state(), doneChunks, chunks.size(), retried));
        return done.state() == NovelProoferJob.State.DONE && doneChunks == chunks.size() ? 0 : 1;
    }

    private static String describe(Task<NovelProoferJob.State> job) {
        return job.state() + " (phase " + job.attribute(NovelProoferJob.PHASE) + ")";
    }
}
