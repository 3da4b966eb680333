package dev.statekit.examples.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

/** The services' JSON: one configured Jackson mapper. */
public final class Json {
    /** The most nesting a request body may have. */
    static final int MAX_DEPTH = 32;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build());
    }

    private Json() {}

    /** Returns the mapper. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Writes {@code value} as JSON. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads {@code text} as JSON.
     *
     * @throws ApiException 400 {@code MALFORMED_JSON} when it is not JSON
     */
    public static JsonNode read(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            String detail = e.getOriginalMessage();
            if (detail.length() > 200) detail = detail.substring(0, 200) + "…";
            throw new ApiException(400, "MALFORMED_JSON", "the body is not valid JSON: " + detail
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"));
        }
    }
}
