package dev.statekit.examples.serve.readdo;

import dev.statekit.examples.hosts.ReadDoHost.StepException;
import java.util.List;
import java.util.Map;

/**
 * The AI of the pipeline: one call per AI step (summarize, score, todos, card). A real client asks a
 * model; {@link SimulatedAi} stands in for it. A call that fails throws a {@link StepException}
 * with {@code AI_TIMEOUT}, {@code AI_RATE_LIMITED} or {@code AI_PROVIDER_ERROR}; what a call returns
 * is checked against the contract's schema by the pipeline, which fails the step with
 * {@code AI_SCHEMA_INVALID} when it does not hold.
 */
public interface AiClient {
    /**
     * A score and its reasons (at least three).
     *
     * @param score   0 to 100
     * @param reasons why
     */
    record Score(int score, List<String> reasons) {}

    /**
     * A todo of the item.
     *
     * @param title what to do
     * @param kind  {@code read}, {@code note} or {@code output} (a task that produces something)
     */
    record Todo(String title, String kind) {}

    /**
     * The item's card.
     *
     * @param title      its title
     * @param renderSpec how to render it: at least its {@code template}
     */
    record Card(String title, Map<String, String> renderSpec) {}

    /** Summarizes {@code page} for a reader with {@code intent}. */
    String summarize(Extractor.Page page, String intent) throws StepException, InterruptedException;

    /** Scores {@code page} for {@code intent}. */
    Score score(Extractor.Page page, String summary, String intent) throws StepException, InterruptedException;

    /** Proposes 3 to 7 todos, at least one of them an output. */
    List<Todo> todos(Extractor.Page page, String summary, String intent) throws StepException, InterruptedException;

    /** Designs the card. */
    Card card(Extractor.Page page, String summary, Score score, List<Todo> todos) throws StepException, InterruptedException;
}
