package dev.statekit.examples.serve.etl;

import dev.statekit.core.Machine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code examples serve etl}: the ETL service of seed 003 on an {@link EtlHost}. A submitted
 * document's OCR job (the simulated MineRU) writes its markdown under {@code <data>/artifacts/};
 * its success chains the post-processing job in the same write, which reads the markdown and
 * writes the final JSON under {@code <data>/results/} (the skip wrapper of the default rule, or
 * the simulated LLM's answer). Both jobs run under leases of the runtime, shared by every process
 * on the store. Cancel (while pending) and retry (by stage) are allowed to the task's submitter and
 * the admins ({@link EtlAccess}); OCR jobs lost with their process are run again
 * ({@link LostOcrRecovery}). The HTTP API is {@link EtlApi}.
 */
public final class EtlService implements Service {
    /** How long {@link #close()} lets running jobs finish before handing them back. */
    static final Duration GRACE = Duration.ofSeconds(10);
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@:-]{1,64}");
    private static final Logger log = LoggerFactory.getLogger(EtlService.class);

    /** The factory of {@code examples serve etl}. */
    public static final class Factory implements Service.Factory {
        @Override
        public String name() {
            return "etl";
        }

        @Override
        public String summary() {
            return "chained ETL (seed 003): MineRU OCR, then the skip wrapper or an LLM; cancel while pending, retry by stage";
        }

        @Override
        public Map<String, String> options() {
            Map<String, String> options = new LinkedHashMap<>();
            options.put("ocr-failure-rate", "share of simulated MineRU calls that fail, 0 to 1 (default 0)");
            options.put("llm-failure-rate", "share of simulated LLM calls that fail, 0 to 1 (default 0)");
            options.put("work-millis", "how long each simulated MineRU or LLM call takes (default 200)");
            options.put("admins", "comma-separated users who may cancel and retry every task (default none)");
            options.put("input-dir", "the folder a submission's path is read from (default DATA/inputs)");
            options.put("lease-seconds", "the lease of a running job; a job of a dead process is taken over after it (default 30)");
            options.put("workers", "jobs of both stages run at once by this process (default 4)");
            options.put("lost-ocr-retries", "automatic retries of an OCR job lost with its process (default 3; 0: none)");
            return options;
        }

        @Override
        public Service create(ServeContext context) throws Exception {
            return new EtlService(context);
        }
    }

    private final EtlHost host;
    private final EtlFiles files;
    private final LostOcrRecovery recovery;
    private final ScheduledExecutorService sweeper;
    private boolean started;
    private boolean closed;

    EtlService(ServeContext context) throws Exception {
        double ocrRate = context.rate("ocr-failure-rate", 0);
        double llmRate = context.rate("llm-failure-rate", 0);
        long workMillis = context.number("work-millis", 200, 0, 600_000);
        long leaseSeconds = context.number("lease-seconds", 30, 2, 3600);
        int workers = context.integer("workers", 4, 1, 64);
        int lostOcrRetries = context.integer("lost-ocr-retries", 3, 0, 100);
        Set<String> admins = admins(context.option("admins").orElse(""));
        this.files = new EtlFiles(context.dataDir(), context.path("input-dir", "inputs"));
        Mineru mineru = Simulated.mineru(files, context.owner(), context.clock(), ocrRate, workMillis);
        Llm llm = Simulated.llm(files, context.owner(), context.clock(), llmRate, workMillis);
        EtlStages stages = new EtlStages(files, mineru, llm);
        EtlHost.Settings settings = EtlHost.Settings.defaults()
                .authorizer(new EtlAccess(admins))
                .lease(Duration.ofSeconds(leaseSeconds))
                .workers(workers)
                .classifier(EtlStages.classifier());
        this.host = new EtlHost(context.store(), context.clock(), null, context.owner(), stages, stages, settings);
        this.recovery = new LostOcrRecovery(host, lostOcrRetries);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etl-lost-ocr-recovery");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public TransitionEngine engine() {
        return host.engine();
    }

    @Override
    public TaskRuntime runtime() {
        return host.runtime();
    }

    @Override
    public List<Machine<?, ?>> machines() {
        return List.of(EtlTask.MACHINE);
    }

    @Override
    public List<String> queues() {
        return List.of(EtlTask.OCR_QUEUE, EtlTask.POSTPROCESS_QUEUE);
    }

    @Override
    public void routes(Router router) {
        new EtlApi(host, files).routes(router);
    }

    @Override
    public synchronized void start() {
        if (started || closed) return;
        started = true;
        host.start();
        sweeper.scheduleWithFixedDelay(this::recover, 0, 1, TimeUnit.SECONDS);
    }

    private void recover() {
        try {
            recovery.pass();
        } catch (RuntimeException e) {
            log.warn("the recovery of lost OCR jobs failed this time: {}", e.toString());
        }
    }

    /** Stops the recovery, then the runtime: running jobs may finish within {@link #GRACE}, the rest are handed back. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        sweeper.shutdownNow();
        try {
            if (!sweeper.awaitTermination(GRACE.toMillis(), TimeUnit.MILLISECONDS)) log.warn("the recovery of lost OCR jobs did not stop");
            host.runtime().stop(GRACE).get(GRACE.toMillis() * 3, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            log.warn("the ETL runtime did not stop cleanly: {}", e.toString());
        } finally {
            host.close();
        }
    }

    private static Set<String> admins(String value) {
        Set<String> admins = new LinkedHashSet<>();
        for (String name : Arrays.asList(value.split(","))) {
            String n = name.trim();
            if (n.isEmpty()) continue;
            if (!USER.matcher(n).matches() || n.equals(dev.statekit.examples.serve.Exchange.ANONYMOUS)) {
                throw new IllegalArgumentException("--admins must list users of 1 to 64 letters, digits or . _ @ : - (not anonymous), not '" + n + "'");
            }
            admins.add(n);
        }
        return admins;
    }
}
