package dev.statekit.examples.serve.etl;

import dev.statekit.core.spi.Clock;
import dev.statekit.examples.serve.Json;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The simulated MineRU and LLM of the service: each call is appended to its ledger (task, attempt,
 * the process that called), takes {@code --work-millis}, and fails with the option's rate (0 never,
 * 1 always); otherwise it answers deterministically from its input.
 */
final class Simulated {
    private Simulated() {}

    /** The simulated MineRU: the document's text as markdown under a heading of its name. */
    static Mineru mineru(EtlFiles files, String owner, Clock clock, double failureRate, long workMillis) {
        return request -> {
            files.append(EtlFiles.MINERU_LEDGER, request.taskId() + " " + request.attempt() + " " + owner + " " + clock.now());
            work(workMillis);
            if (fails(failureRate)) {
                throw new StageFailure("MINERU_FAILED", "MineRU could not parse " + request.fileName() + " (simulated failure, attempt "
                        + request.attempt() + ")");
            }
            return markdown(request.fileName(), request.content());
        };
    }

    /** The simulated LLM: a JSON object per strategy, computed from the chunks. */
    static Llm llm(EtlFiles files, String owner, Clock clock, double failureRate, long workMillis) {
        return request -> {
            files.append(EtlFiles.LLM_LEDGER, request.taskId() + " " + request.attempt() + " " + owner + " " + clock.now()
                    + " " + request.strategy());
            work(workMillis);
            if (fails(failureRate)) {
                throw new StageFailure("LLM_FAILED", "the LLM did not produce JSON for " + request.strategy() + " (simulated failure, attempt "
                        + request.attempt() + ")");
            }
            return Json.write(answer(request));
        };
    }

    private static Map<String, Object> answer(Llm.Request request) {
        Map<String, Object> answer = new LinkedHashMap<>();
        String all = String.join("", request.chunks());
        switch (request.strategy()) {
            case "direct-json" -> {
                answer.put("title", firstLine(all));
                answer.put("lines", all.lines().count());
                answer.put("words", words(all));
            }
            case "chunked-summarize" -> {
                List<String> summaries = new ArrayList<>();
                for (String chunk : request.chunks()) summaries.add(abbreviate(chunk.strip().replaceAll("\\s+", " "), 80));
                answer.put("summaries", summaries);
            }
            default -> {
                List<Map<String, Object>> fields = new ArrayList<>();
                for (int i = 0; i < request.chunks().size(); i++) {
                    Map<String, Object> f = new LinkedHashMap<>();
                    f.put("chunk", i + 1);
                    f.put("first_line", firstLine(request.chunks().get(i)));
                    f.put("words", words(request.chunks().get(i)));
                    fields.add(f);
                }
                answer.put("fields", fields);
            }
        }
        return answer;
    }

    /** Returns the markdown of a document: a heading of its name, then its text (or a note on its bytes when it is not UTF-8 text). */
    static String markdown(String fileName, byte[] content) {
        StringBuilder md = new StringBuilder("# ").append(fileName.replaceAll("[\\r\\n]+", " ")).append("\n\n");
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(content)).toString();
            for (String line : text.lines().toList()) md.append(line.strip()).append('\n');
        } catch (CharacterCodingException e) {
            md.append("(").append(content.length).append(" bytes that are not text)\n");
        }
        return md.toString();
    }

    private static void work(long millis) throws InterruptedException {
        if (millis > 0) Thread.sleep(millis);   // the simulated service's time to answer
    }

    private static boolean fails(double rate) {
        return ThreadLocalRandom.current().nextDouble() < rate;
    }

    private static String firstLine(String text) {
        for (String line : text.lines().toList()) {
            String l = line.strip().replaceFirst("^#+\\s*", "");
            if (!l.isEmpty()) return abbreviate(l, 120);
        }
        return "";
    }

    private static long words(String text) {
        String t = text.strip();
        return t.isEmpty() ? 0 : t.split("\\s+").length;
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }
}
