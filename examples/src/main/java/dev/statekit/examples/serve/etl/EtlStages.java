package dev.statekit.examples.serve.etl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.statekit.core.Task;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.examples.serve.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The work of the two stages over the service's files: the OCR job reads the document, calls
 * MineRU and writes the markdown as {@code artifacts/<task>/mineru-<attempt>.md}; the
 * post-processing job reads that markdown, wraps it ({@code skip}) or calls the LLM, and writes
 * {@code results/<task>.json}.
 *
 * <p>Each file is written once per key, even across a crash: an OCR attempt whose markdown is
 * already on disk (its process died after the write, before the store recorded it) returns it
 * without calling MineRU; a post-processing job whose result is already on disk for the same
 * markdown returns it without calling the LLM.
 */
final class EtlStages implements EtlHost.Ocr, EtlHost.PostProcessor {
    /** The attribute naming the input file of a submission by path (relative to the inputs folder). */
    static final String SOURCE_PATH = "source_path";

    private final EtlFiles files;
    private final Mineru mineru;
    private final Llm llm;

    EtlStages(EtlFiles files, Mineru mineru, Llm llm) {
        this.files = files;
        this.mineru = mineru;
        this.llm = llm;
    }

    /**
     * Returns the classifier of the stages' exceptions: a {@link StageFailure} by its code (fatal),
     * the rest as the default says. A message never shows the server's folders: a path in the
     * inputs folder is said as the submission gave it, one in the data folder relative to it.
     */
    static ErrorClassifier classifier(EtlFiles files) {
        ErrorClassifier defaults = ErrorClassifier.defaults();
        return error -> {
            WorkResult.Failure f = error instanceof StageFailure s
                    ? new WorkResult.Failure(s.code(), String.valueOf(s.getMessage()), false, null)
                    : defaults.classify(error);
            return new WorkResult.Failure(f.code(), files.withoutFolders(f.message()), f.retryable(), f.step());
        };
    }

    @Override
    public String parse(Task<State> task) throws Exception {
        int attempt = count(task, EtlTask.ATTEMPT_OCR);
        String key = EtlFiles.artifactKey(task.id(), attempt);
        if (files.exists(key)) return key;      // written by this attempt before its process died
        byte[] content = content(task);
        String markdown = mineru.parse(new Mineru.Request(task.id(), attempt, fileName(task), content));
        files.writeAtomically(key, markdown);
        return key;
    }

    @Override
    public String process(Task<State> task, String markdownKey, String mode) throws Exception {
        String resultKey = EtlFiles.resultKey(task.id());
        Optional<String> earlier = files.read(resultKey);
        if (earlier.isPresent() && sameMarkdown(earlier.get(), markdownKey)) return resultKey;   // written before its process died
        String markdown = files.read(markdownKey).orElseThrow(() -> new StageFailure("ARTIFACT_MISSING",
                "the OCR markdown " + markdownKey + " is not in the artifacts folder: retry from mineru"));
        ObjectNode result = Json.mapper().createObjectNode();
        result.put("task_id", task.id());
        result.put("file_name", fileName(task));
        result.put("rule_id", task.attributes().getOrDefault(EtlTask.RULE_ID, Rules.DEFAULT));
        result.put("postprocess_mode", mode);
        result.put(EtlTask.MARKDOWN_KEY, markdownKey);
        ObjectNode md = result.putObject("markdown");
        md.put("chars", markdown.length());
        md.put("lines", markdown.lines().count());
        md.put("sha256", EtlFiles.sha256(markdown));
        if (!mode.equals(Rules.SKIP)) {
            String strategy = Rules.strategy(mode, markdown.length());
            String answer = llm.complete(new Llm.Request(task.id(), count(task, EtlTask.ATTEMPT_POSTPROCESS), strategy,
                    Rules.chunks(strategy, markdown)));
            JsonNode output;
            try {
                output = Json.mapper().readTree(answer);
            } catch (IOException e) {
                output = null;
            }
            if (output == null || !output.isObject()) throw new StageFailure("LLM_BAD_OUTPUT", "the LLM's answer is not a JSON object");
            result.put("strategy", strategy);
            result.set("output", output);
        }
        files.writeAtomically(resultKey, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(result) + "\n");
        return resultKey;
    }

    /** Returns the document of the task: its payload (a submission's {@code content}) or its input file. */
    private byte[] content(Task<State> task) throws StageFailure {
        String path = task.attribute(SOURCE_PATH);
        if (path != null) return files.readInput(path);
        String payload = task.record().payload();
        return payload == null ? new byte[0] : payload.getBytes(StandardCharsets.UTF_8);
    }

    private boolean sameMarkdown(String result, String markdownKey) {
        try {
            return markdownKey.equals(Json.mapper().readTree(result).path(EtlTask.MARKDOWN_KEY).asText(null));
        } catch (IOException e) {
            return false;
        }
    }

    static String fileName(Task<State> task) {
        return task.attributes().getOrDefault(EtlHost.DOCUMENT, "");
    }

    static int count(Task<State> task, String key) {
        String value = task.attribute(key);
        try {
            return value == null ? 0 : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
