package dev.statekit.examples.hosts.programs;

import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.core.spi.Clock;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.store.Store;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ETL sample program: four documents on an {@link EtlHost}; a cancel refused while one is
 * parsed, a cancel of a pending one, a post-processing timeout retried from {@code postprocess}
 * on the kept markdown.
 */
public final class EtlProgram {
    private static final Set<State> ENDED = EnumSet.of(State.COMPLETED, State.FAILED, State.CANCELLED);

    private EtlProgram() {}

    /**
     * Runs the sample program on {@code store}. Prints what happens and a summary.
     *
     * @return 0 when the three documents not cancelled completed, 1 otherwise
     */
    public static int run(Store store, PrintStream out) throws InterruptedException {
        out.println("etl host: OCR job chained with post-processing; cancel only while pending");
        CountDownLatch parsing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ocrCalls = new AtomicInteger();
        EtlHost.Ocr simulated = EtlHost.simulatedOcr();
        EtlHost.Ocr gatedOcr = task -> {
            ocrCalls.incrementAndGet();
            if (String.valueOf(task.attribute(EtlHost.DOCUMENT)).startsWith("invoice")) {
                // hold the invoice in MINERU_PARSING until the program has tried to cancel it
                parsing.countDown();
                if (!release.await(10, TimeUnit.SECONDS)) throw new TimeoutException("not released");
            }
            return simulated.parse(task);
        };
        EtlHost host = new EtlHost(store, Clock.system(), null, "etl-worker-1", gatedOcr, EtlHost.simulatedPostProcessor());
        try (Conditions conditions = new Conditions(host.engine())) {
            return program(host, conditions, out, parsing, release, ocrCalls);
        } finally {
            release.countDown();
            host.close();
        }
    }

    private static int program(EtlHost host, Conditions conditions, PrintStream out, CountDownLatch parsing, CountDownLatch release,
                               AtomicInteger ocrCalls) throws InterruptedException {
        host.start();
        long invoice = host.submit("invoice-2031.pdf", "invoices", "direct-json");
        out.println("submitted task " + invoice + " invoice-2031.pdf (rule invoices, direct-json)");
        if (!parsing.await(10, TimeUnit.SECONDS)) {
            out.println("the OCR job did not start in time");
            return 1;
        }
        CancelResult<State> refused = host.cancel(invoice, "user");
        String refusal = refused.outcome() instanceof Outcome.Refused<State> r ? r.reasonCode() : refused.status().name();
        out.println("cancel task " + invoice + " while " + host.task(invoice).state() + ": " + refused.status() + " " + refusal);
        host.pause();
        long scan = host.submit("scan-0007.png", null, "direct-json");
        out.println("OCR queue paused; submitted task " + scan + " scan-0007.png (default rule: "
                + host.task(scan).attribute(EtlTask.POSTPROCESS_MODE) + ")");
        long slow = host.submit("slow-contract.pdf", "contracts", "chunked-extract");
        out.println("submitted task " + slow + " slow-contract.pdf (rule contracts, chunked-extract)");
        long unwanted = host.submit("duplicate.pdf", null, "direct-json");
        State before = host.task(unwanted).state();
        CancelResult<State> cancelled = host.cancel(unwanted, "user");
        out.println("cancel task " + unwanted + " duplicate.pdf while " + before + ": " + cancelled.status());
        host.resume();
        release.countDown();
        List<Long> started = List.of(invoice, scan, slow);
        if (!conditions.await(() -> started.stream().allMatch(id -> ENDED.contains(host.task(id).state())), Duration.ofSeconds(20))) {
            out.println("the chains did not end in time");
            return 1;
        }
        Task<State> failed = host.task(slow);
        String keptMarkdown = failed.attribute(EtlTask.MARKDOWN_KEY);
        out.println("task " + slow + " " + failed.state() + " in phase " + failed.attribute(EtlTask.PHASE) + ": "
                + EtlHost.fields(failed).get("error_code") + ", markdown kept at " + keptMarkdown);
        Outcome<State> retried = host.retry(slow, "postprocess", "user");
        out.println("retry task " + slow + " from postprocess: " + (retried.isApplied() ? retried.orElseThrow().task().state() : retried));
        if (!conditions.await(() -> ENDED.contains(host.task(slow).state()), Duration.ofSeconds(20))) {
            out.println("the retried post-processing did not end in time");
            return 1;
        }
        List<String> lines = new ArrayList<>();
        int completed = 0;
        for (long id : List.of(invoice, scan, slow, unwanted)) {
            Task<State> t = host.task(id);
            if (t.state() == State.COMPLETED) completed++;
            lines.add(String.format(Locale.ROOT, "task %d %-9s phase %-9s ocr attempts %s, post-processing attempts %s, result %s",
                    id, t.state(), t.attributes().getOrDefault(EtlTask.PHASE, "-"), t.attributes().getOrDefault(EtlTask.ATTEMPT_OCR, "0"),
                    t.attributes().getOrDefault(EtlTask.ATTEMPT_POSTPROCESS, "0"), t.attributes().getOrDefault(EtlHost.RESULT_KEY, "-")));
        }
        lines.forEach(out::println);
        Task<State> retriedTask = host.task(slow);
        boolean keptOcr = Objects.equals(keptMarkdown, retriedTask.attribute(EtlTask.MARKDOWN_KEY))
                && "1".equals(retriedTask.attribute(EtlTask.ATTEMPT_OCR));
        out.println(String.format(Locale.ROOT, "summary: %d completed, 1 cancelled while pending, 1 cancel refused (%s), "
                + "post-processing retried %s, %d OCR runs", completed, refusal,
                keptOcr ? "on the kept OCR markdown" : "WITHOUT the OCR markdown", ocrCalls.get()));
        return completed == 3 && host.task(unwanted).state() == State.CANCELLED && keptOcr
                && EtlTask.TASK_ALREADY_STARTED.equals(refusal) ? 0 : 1;
    }
}
