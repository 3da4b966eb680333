package dev.statekit.examples.serve.readdo;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.statekit.core.Task;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.hosts.ReadDoHost.StepException;
import dev.statekit.examples.serve.Json;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The steps of the pipeline (extract, summarize, score, todos, card) over an {@link Extractor} and
 * an {@link AiClient}, each output checked against the contract's schema (section 7): a summary
 * that is not blank, a score from 0 to 100 with at least three reasons, 3 to 7 todos with at least
 * one output, a card with a render spec naming its template. An output that breaks it fails the
 * step with {@code AI_SCHEMA_INVALID} (retryable: the next generation may hold), so the item
 * never reaches READY with it.
 *
 * <p>Every call is appended to the call ledger first: the item, its run and the step, and the
 * process making it. Structured outputs are kept as JSON text (the item's attributes).
 */
final class Pipeline implements ReadDoHost.Steps {
    /** The item attribute holding what the user captured the link for. */
    static final String INTENT = "intent";
    private static final Set<String> TODO_KINDS = Set.of("read", "note", "output");

    private final Extractor extractor;
    private final AiClient ai;
    private final Ledger calls;
    private final String owner;

    Pipeline(Extractor extractor, AiClient ai, Ledger calls, String owner) {
        this.extractor = extractor;
        this.ai = ai;
        this.calls = calls;
        this.owner = owner;
    }

    @Override
    public String run(String step, Task<State> item, String runId) throws Exception {
        return run(step, item, runId, Map.of());
    }

    @Override
    public String run(String step, Task<State> item, String runId, Map<String, String> earlier) throws Exception {
        String url = Objects.requireNonNull(item.attribute(ReadDoHost.URL), "url");
        String intent = Objects.requireNonNullElse(item.attribute(INTENT), "");
        calls.append("item=" + item.id() + " run=" + runId + " step=" + step + " by=" + owner);
        if (step.equals("extract")) {
            Extractor.Page page = extractor.extract(url);
            if (page.text().isBlank()) throw new StepException("EXTRACTION_PARSE_FAILED", "the page holds no text", false);
            return write(page);
        }
        Extractor.Page page = read(earlier, "extract", Extractor.Page.class);
        switch (step) {
            case "summarize" -> {
                String summary = ai.summarize(page, intent);
                if (summary.isBlank()) throw invalid("the summary is blank");
                return summary;
            }
            case "score" -> {
                AiClient.Score score = ai.score(page, need(earlier, "summarize"), intent);
                if (score.score() < 0 || score.score() > 100) throw invalid("the score must be 0 to 100, was " + score.score());
                long reasons = score.reasons().stream().filter(r -> !r.isBlank()).count();
                if (reasons < 3) throw invalid("the score needs at least 3 reasons, had " + reasons);
                return write(score);
            }
            case "todos" -> {
                List<AiClient.Todo> todos = ai.todos(page, need(earlier, "summarize"), intent);
                if (todos.size() < 3 || todos.size() > 7) throw invalid("the todos must be 3 to 7, were " + todos.size());
                for (AiClient.Todo t : todos) {
                    if (t.title().isBlank() || !TODO_KINDS.contains(t.kind())) throw invalid("a todo needs a title and a kind of " + TODO_KINDS);
                }
                if (todos.stream().noneMatch(t -> t.kind().equals("output"))) throw invalid("the todos need an output task");
                return write(todos);
            }
            case "card" -> {
                AiClient.Score score = read(earlier, "score", AiClient.Score.class);
                List<AiClient.Todo> todos = List.of(read(earlier, "todos", AiClient.Todo[].class));
                AiClient.Card card = ai.card(page, need(earlier, "summarize"), score, todos);
                if (card.title().isBlank()) throw invalid("the card has no title");
                String template = card.renderSpec().get("template");
                if (template == null || template.isBlank()) throw invalid("the card's render_spec names no template");
                return write(Map.of("title", card.title(), "render_spec", card.renderSpec()));
            }
            default -> throw new IllegalArgumentException("no step " + step);
        }
    }

    private static StepException invalid(String why) {
        return new StepException("AI_SCHEMA_INVALID", "the model's answer breaks the schema: " + why, true);
    }

    private static String need(Map<String, String> earlier, String step) {
        String value = earlier.get(step);
        if (value == null) throw new IllegalStateException("the step " + step + " has not run in this run");
        return value;
    }

    private static <T> T read(Map<String, String> earlier, String step, Class<T> type) throws JsonProcessingException {
        return Json.mapper().readValue(need(earlier, step), type);
    }

    private static String write(Object value) {
        return Json.write(value);
    }
}
