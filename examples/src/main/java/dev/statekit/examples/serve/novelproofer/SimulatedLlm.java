package dev.statekit.examples.serve.novelproofer;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.examples.hosts.NovelProoferHost;
import dev.statekit.examples.serve.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;

/**
 * The LLM of the service, simulated: it takes {@code latency} per call, then fails with a
 * retryable status (429 or 503) at {@code retryableRate}, with a fatal 400 at {@code fatalRate},
 * with "429, retry after D" ({@link NovelProoferHost.RateLimited}) at {@code rateLimitedRate}, and
 * otherwise answers the chunk with a few common slips corrected ({@link #proofread(String)}).
 * A rate of 0 never fails and 1 always does; in between each call draws from a generator seeded by
 * its chunk and its lease, so a call that runs again after a retry draws anew.
 *
 * <p>Every call that ends (answered or failed) appends one line to its ledger, a JSON object per
 * line: the time, this process's lease owner name, the job, the chunk, the attempt, the lease's
 * fencing token, the model and the outcome ({@code ok}, {@code 429}, {@code 503}, {@code 400},
 * or {@code 429-retry-after} for a 429 that names its wait).
 * The ledger is what the service's tests read to tell that no chunk was proofread again after it
 * was done. A real client implements {@link NovelProoferHost.Llm} the same way, over HTTP.
 */
public final class SimulatedLlm implements NovelProoferHost.Llm {
    private static final Pattern SPACES = Pattern.compile(" {2,}");
    private static final Pattern CJK_PUNCTUATION = Pattern.compile("(?<=[\\u4e00-\\u9fff\\u3001\\u3002\\uff0c])([,.!?:;])");

    private final Clock clock;
    private final double retryableRate;
    private final double fatalRate;
    private final double rateLimitedRate;
    private final Duration retryAfter;
    private final Duration latency;
    private final Path ledger;
    private final String owner;

    /**
     * Creates the simulated LLM.
     *
     * @param clock         the clock its latency and ledger times are on
     * @param retryableRate how often a call fails with 429 or 503, from 0 to 1
     * @param fatalRate     how often a call fails with 400, from 0 to 1
     * @param latency       how long a call takes
     * @param ledger        the file its calls are appended to
     * @param owner         the name of this process in the ledger
     */
    public SimulatedLlm(Clock clock, double retryableRate, double fatalRate, Duration latency, Path ledger, String owner) {
        this(clock, retryableRate, fatalRate, 0, Duration.ZERO, latency, ledger, owner);
    }

    /**
     * Creates the simulated LLM that also answers "429, retry after {@code retryAfter}".
     *
     * @param clock           the clock its latency and ledger times are on
     * @param retryableRate   how often a call fails with 429 or 503 (without a wait), from 0 to 1
     * @param fatalRate       how often a call fails with 400, from 0 to 1
     * @param rateLimitedRate how often a call answers 429 with a retry-after, from 0 to 1
     * @param retryAfter      the wait such an answer names
     * @param latency         how long a call takes
     * @param ledger          the file its calls are appended to
     * @param owner           the name of this process in the ledger
     */
    public SimulatedLlm(Clock clock, double retryableRate, double fatalRate, double rateLimitedRate, Duration retryAfter, Duration latency,
                        Path ledger, String owner) {
        if (!(rateLimitedRate >= 0 && rateLimitedRate <= 1)) throw new IllegalArgumentException("rateLimitedRate must be from 0 to 1, was " + rateLimitedRate);
        if (retryAfter.isNegative()) throw new IllegalArgumentException("retryAfter must be >= 0, was " + retryAfter);
        this.rateLimitedRate = rateLimitedRate;
        this.retryAfter = retryAfter;
        if (!(retryableRate >= 0 && retryableRate <= 1)) throw new IllegalArgumentException("retryableRate must be from 0 to 1, was " + retryableRate);
        if (!(fatalRate >= 0 && fatalRate <= 1)) throw new IllegalArgumentException("fatalRate must be from 0 to 1, was " + fatalRate);
        if (latency.isNegative()) throw new IllegalArgumentException("latency must be >= 0, was " + latency);
        this.clock = clock;
        this.retryableRate = retryableRate;
        this.fatalRate = fatalRate;
        this.latency = latency;
        this.ledger = ledger;
        this.owner = owner;
    }

    /**
     * Returns {@code text} as the simulated model corrects it: {@code teh} becomes {@code the}, a
     * space before a comma or a full stop goes, runs of spaces become one, and ASCII punctuation
     * after a Chinese character becomes its full-width form ({@code ，。！？：；}).
     */
    public static String proofread(String text) {
        String t = text.replace("teh ", "the ").replace("Teh ", "The ").replace(" ,", ",").replace(" .", ".");
        t = SPACES.matcher(t).replaceAll(" ");
        StringBuilder b = new StringBuilder(t.length());
        var m = CJK_PUNCTUATION.matcher(t);
        while (m.find()) {
            String wide = switch (m.group(1)) {
                case "," -> "，";
                case "." -> "。";
                case "!" -> "！";
                case "?" -> "？";
                case ":" -> "：";
                default -> "；";
            };
            m.appendReplacement(b, wide);
        }
        m.appendTail(b);
        return b.toString();
    }

    @Override
    public String proofread(int index, int attempt, String model, String text) throws Exception {
        return proofread(new NovelProoferHost.Call(0, 0, index, attempt, 0, model, text));
    }

    @Override
    public String proofread(NovelProoferHost.Call call) throws Exception {
        waitLatency();
        SplittableRandom random = new SplittableRandom(call.chunk() * 0x9E3779B97F4A7C15L ^ call.fencingToken());
        boolean fatal = random.nextDouble() < fatalRate;
        boolean retryable = random.nextDouble() < retryableRate;
        boolean rateLimited = rateLimitedRate > 0 && random.nextDouble() < rateLimitedRate;    // no draw at 0: the other draws stay as they were
        if (fatal) {
            record(call, "400");
            throw new ErrorClassifier.StatusException(400, "the model refused the request (simulated)");
        }
        if (rateLimited) {
            record(call, "429-retry-after");
            throw new NovelProoferHost.RateLimited(retryAfter, "rate limited, retry after " + retryAfter.toMillis() + " ms (simulated)");
        }
        if (retryable) {
            int status = random.nextBoolean() ? 429 : 503;
            record(call, Integer.toString(status));
            throw new ErrorClassifier.StatusException(status, status == 429 ? "rate limited, retry later (simulated)"
                    : "the model is overloaded (simulated)");
        }
        String output = proofread(call.text());
        record(call, "ok");
        return output;
    }

    /** Waits out the latency on the clock. */
    private void waitLatency() throws InterruptedException {
        if (latency.isZero()) return;
        CompletableFuture<Void> elapsed = new CompletableFuture<>();
        clock.schedule(clock.now().plus(latency), () -> elapsed.complete(null));
        try {
            elapsed.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private void record(NovelProoferHost.Call call, String outcome) throws IOException {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("at", clock.now().toString());
        line.put("owner", owner);
        line.put("job", call.job());
        line.put("chunk", call.chunk());
        line.put("index", call.index());
        line.put("attempt", call.attempt());
        line.put("token", call.fencingToken());
        line.put("model", call.model());
        line.put("outcome", outcome);
        // One write of one short line, appended: lines of calls at once (of several processes too) do not mix.
        Files.write(ledger, (Json.write(line) + "\n").getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }
}
