package dev.statekit.examples.serve.readdo;

import dev.statekit.examples.hosts.ReadDoHost.StepException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The AI of the service: answers every call after {@code latency} with text made up from the page.
 * At the failure rate a call fails: it times out ({@code AI_TIMEOUT}), is rate limited
 * ({@code AI_RATE_LIMITED}), meets a provider error ({@code AI_PROVIDER_ERROR}), all retryable, or
 * answers something that breaks the schema (a blank summary, one reason, two todos without an
 * output, a card without its render spec), which the pipeline's check fails with
 * {@code AI_SCHEMA_INVALID}.
 */
final class SimulatedAi implements AiClient {
    private enum Failure { TIMEOUT, RATE_LIMITED, PROVIDER_ERROR, SCHEMA }

    private final Chance failures;
    private final Duration latency;

    SimulatedAi(Chance failures, Duration latency) {
        this.failures = failures;
        this.latency = latency;
    }

    /** Waits {@code latency}, the simulated time of a call. */
    static void pause(Duration latency) throws InterruptedException {
        if (!latency.isZero()) Thread.sleep(latency.toMillis());
    }

    /** Waits, then returns whether the call answers off the schema, or throws its failure. */
    private boolean call() throws StepException, InterruptedException {
        pause(latency);
        if (!failures.fails()) return false;
        switch (Chance.pick(Failure.values())) {
            case TIMEOUT -> throw new StepException("AI_TIMEOUT", "the model did not answer within its deadline", true);
            case RATE_LIMITED -> throw new StepException("AI_RATE_LIMITED", "the provider answered 429 Too Many Requests", true);
            case PROVIDER_ERROR -> throw new StepException("AI_PROVIDER_ERROR", "the provider answered 502 Bad Gateway", true);
            default -> {
                return true;
            }
        }
    }

    @Override
    public String summarize(Extractor.Page page, String intent) throws StepException, InterruptedException {
        if (call()) return " ";
        return "A piece on " + page.title() + ": one claim, three examples and a next step, read for: " + intent + ".";
    }

    @Override
    public Score score(Extractor.Page page, String summary, String intent) throws StepException, InterruptedException {
        int score = 40 + Math.floorMod((page.title() + intent).hashCode(), 60);
        if (call()) return new Score(score, List.of("relevant"));
        return new Score(score, List.of("it matches the intent '" + intent + "'",
                "it makes one claim with three examples", "it ends with a next step a reader can take"));
    }

    @Override
    public List<Todo> todos(Extractor.Page page, String summary, String intent) throws StepException, InterruptedException {
        if (call()) return List.of(new Todo("Read it", "read"), new Todo("Think about it", "note"));
        return List.of(new Todo("Read " + page.title() + " closely", "read"),
                new Todo("Note its claim and the strongest example", "note"),
                new Todo("Write a one-page memo on " + page.title() + " for: " + intent, "output"));
    }

    @Override
    public Card card(Extractor.Page page, String summary, Score score, List<Todo> todos) throws StepException, InterruptedException {
        if (call()) return new Card(page.title(), Map.of());
        String priority = score.score() >= 70 ? "high" : score.score() >= 50 ? "normal" : "low";
        Map<String, String> spec = new LinkedHashMap<>();
        spec.put("template", "card-v1");
        spec.put("priority", priority);
        spec.put("layout", "summary-score-todos");
        return new Card(page.title(), spec);
    }
}
