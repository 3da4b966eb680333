package dev.statekit.examples.serve.etl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ETL rules a task may name with {@code rule_id}, each with its post-processing mode, and the
 * strategies of the LLM modes.
 *
 * <p>The global default rule {@value #DEFAULT} (used when a submission names none) has mode
 * {@value #SKIP}: no LLM call, the result is a stable JSON wrapper of the markdown's pointer. The
 * other built-in rules are named after their mode: {@code direct-json} (the whole markdown in one
 * call), {@code chunked-summarize} and {@code chunked-extract} (one call over chunks of
 * {@value #CHUNK_CHARS} characters), and {@code auto}, which picks {@code direct-json} for markdown
 * of at most {@value #AUTO_THRESHOLD} characters and {@code chunked-extract} above.
 */
final class Rules {
    /** The rule used when a submission names none. */
    static final String DEFAULT = "default";
    /** The mode that skips the LLM. */
    static final String SKIP = "skip";
    /** The mode that picks a strategy by the markdown's size. */
    static final String AUTO = "auto";
    /** The largest markdown {@code auto} sends whole. */
    static final int AUTO_THRESHOLD = 8000;
    /** The size of a chunk of the chunked strategies. */
    static final int CHUNK_CHARS = 2000;

    /** The rules by id, with their modes. */
    static final Map<String, String> BUILT_IN;

    static {
        Map<String, String> rules = new LinkedHashMap<>();
        rules.put(DEFAULT, SKIP);
        rules.put("direct-json", "direct-json");
        rules.put("chunked-summarize", "chunked-summarize");
        rules.put("chunked-extract", "chunked-extract");
        rules.put(AUTO, AUTO);
        BUILT_IN = Collections.unmodifiableMap(rules);
    }

    private Rules() {}

    /** Returns the strategy of {@code mode} for markdown of {@code chars} characters. */
    static String strategy(String mode, int chars) {
        if (!mode.equals(AUTO)) return mode;
        return chars <= AUTO_THRESHOLD ? "direct-json" : "chunked-extract";
    }

    /** Returns {@code markdown} as {@code strategy} sends it: whole for {@code direct-json}, else in chunks. */
    static List<String> chunks(String strategy, String markdown) {
        if (strategy.equals("direct-json") || markdown.isEmpty()) return List.of(markdown);
        List<String> chunks = new ArrayList<>();
        for (int i = 0; i < markdown.length(); i += CHUNK_CHARS) chunks.add(markdown.substring(i, Math.min(markdown.length(), i + CHUNK_CHARS)));
        return chunks;
    }
}
