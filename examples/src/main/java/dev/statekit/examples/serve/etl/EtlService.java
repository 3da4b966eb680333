package dev.statekit.examples.serve.etl;

import dev.statekit.examples.EtlTask;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.examples.serve.Options;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import dev.statekit.examples.serve.SystemService;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

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
public final class EtlService extends SystemService {
    /** How long {@link #close()} lets running jobs finish before handing them back. */
    static final Duration GRACE = Duration.ofSeconds(10);
    // the service's own options: name, value, default and description, listed by `serve --help` and parsed by `serve`
    static final Options.Option<Double> OCR_FAILURE_RATE = Options.rate("ocr-failure-rate", 0, "share of simulated MineRU calls that fail");
    static final Options.Option<Double> LLM_FAILURE_RATE = Options.rate("llm-failure-rate", 0, "share of simulated LLM calls that fail");
    static final Options.Option<Long> WORK_MILLIS = Options.number("work-millis", 200, 0, 600_000,
            "how long each simulated MineRU or LLM call takes, in ms");
    static final Options.Option<String> ADMINS = Options.text("admins", "U,V", "", "none",
            "comma-separated users who may cancel and retry every task");
    static final Options.Option<String> INPUT_DIR = Options.path("input-dir", "DIR", "inputs", "the folder a submission's path is read from");
    static final Options.Option<Long> LEASE_SECONDS = Options.number("lease-seconds", 30, 2, 3600,
            "the lease of a running job; a job of a dead process is taken over after it");
    static final Options.Option<Integer> WORKERS = Options.integer("workers", 4, 1, 64, "jobs of both stages run at once by this process");
    static final Options.Option<Integer> LOST_OCR_RETRIES = Options.integer("lost-ocr-retries", 3, 0, 100,
            "automatic retries of an OCR job lost with its process; 0: none");

    /** The factory of {@code examples serve etl}. */
    public static final Service.Factory FACTORY = new SystemService.Factory("etl",
            "chained ETL (seed 003): MineRU OCR, then the skip wrapper or an LLM; cancel while pending, retry by stage",
            Options.of(OCR_FAILURE_RATE, LLM_FAILURE_RATE, WORK_MILLIS, ADMINS, INPUT_DIR, LEASE_SECONDS, WORKERS, LOST_OCR_RETRIES),
            EtlService::new);

    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@:-]{1,64}");

    private final EtlHost host;
    private final EtlFiles files;

    private EtlService(ServeContext context) throws IOException {
        this(context, new EtlFiles(context.dataDir(), context.path(INPUT_DIR)));
    }

    private EtlService(ServeContext context, EtlFiles files) {
        this(context, files, host(context, files));
    }

    private EtlService(ServeContext context, EtlFiles files, EtlHost host) {
        super(new Host(host.engine(), host.runtime(), host::start, host::close), List.of(EtlTask.MACHINE),
                List.of(EtlTask.OCR_QUEUE, EtlTask.POSTPROCESS_QUEUE), GRACE);
        this.host = host;
        this.files = files;
        LostOcrRecovery recovery = new LostOcrRecovery(host, context.get(LOST_OCR_RETRIES));
        every("etl-lost-ocr-recovery", Duration.ofSeconds(1), recovery::pass);
    }

    private static EtlHost host(ServeContext context, EtlFiles files) {
        long workMillis = context.get(WORK_MILLIS);
        Mineru mineru = Simulated.mineru(files, context.owner(), context.clock(), context.get(OCR_FAILURE_RATE), workMillis);
        Llm llm = Simulated.llm(files, context.owner(), context.clock(), context.get(LLM_FAILURE_RATE), workMillis);
        EtlStages stages = new EtlStages(files, mineru, llm);
        EtlHost.Settings settings = EtlHost.Settings.defaults()
                .authorizer(new EtlAccess(admins(context.get(ADMINS))))
                .lease(Duration.ofSeconds(context.get(LEASE_SECONDS)))
                .workers(context.get(WORKERS))
.classifier(EtlStages.classifier(files))
                .soleOwner(context.soleOwner());
        return new EtlHost(context.store(), context.clock(), null, context.owner(), stages, stages, settings);
    }

    @Override
    public void routes(Router router) {
        EtlApi api = new EtlApi(host, files);
        router.post(EtlApi.BASE, api::submit)
                .get(EtlApi.BASE, api::list)
                .get(EtlApi.BASE + "/{task_id}", api::get)
                .get(EtlApi.BASE + "/{task_id}/history", api::history)
                .get(EtlApi.BASE + "/{task_id}/result", api::result)
                .post(EtlApi.BASE + "/{task_id}/cancel", api::cancel)
                .post(EtlApi.BASE + "/{task_id}/retry", api::retry);
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
